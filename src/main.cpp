// main() only hands the arguments and streams to cli::run (no exit() below main).
#include <iostream>

#include "cli/run.hpp"

int main(int argc, char** argv) {
  return tokscope::cli::run(argc, argv, std::cout, std::cerr);
}
