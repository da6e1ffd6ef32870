#include "report/writers.hpp"

namespace tokscope::report {

// An explicit switch rather than a registry: adding a Format without a writer is a compiler
// warning (-Wswitch), not a silent gap.
std::string render(const nlohmann::json& result, Format format) {
  switch (format) {
    case Format::kMd:
      return render_md(result);
    case Format::kJson:
      return render_json(result);
    case Format::kJsonl:
      return render_jsonl(result);
    case Format::kCsv:
      return render_csv(result);
    case Format::kHtml:
      return render_html(result);
  }
  return render_md(result);  // unreachable for a valid enumerator
}

}  // namespace tokscope::report
