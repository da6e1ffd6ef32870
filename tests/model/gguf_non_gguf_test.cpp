// Model files that are not GGUF (.rkllm, .axmodel): identified by extension, size reported,
// ceiling marked estimated.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/test_dir.hpp"
#include "model/gguf/writer.hpp"
#include "model/non_gguf.hpp"

namespace tokscope::model {
namespace {

void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(NonGguf, RkllmFileByExtension) {
  const auto dir = tokscope::testing::fresh_test_dir();
  const auto path = dir / "qwen-w8a8.RKLLM";
  write_file(path, std::string("\x01\x02RK-something-else-entirely", 29));
  EXPECT_EQ(*detect_model_format(path), ModelFileFormat::kRkllm);
  const auto j = describe_non_gguf(path);
  ASSERT_TRUE(j.ok()) << j.error().message;
  EXPECT_EQ((*j)["format"], "rkllm");
  EXPECT_EQ((*j)["size_bytes"], 29);
  EXPECT_EQ((*j)["file_count"], 1);
  EXPECT_EQ((*j)["ceiling_estimated"], true);
  EXPECT_EQ((*j)["leading_bytes_hex"], "01 02 52 4b 2d 73 6f 6d 65 74 68 69 6e 67 2d 65");
  EXPECT_NE((*j)["note"].get<std::string>().find("--model-shape and --quant"), std::string::npos);
  EXPECT_NE((*j)["identified_by"].get<std::string>().find("extension only"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(NonGguf, AxmodelFileAndDirectory) {
  const auto dir = tokscope::testing::fresh_test_dir();
  const auto model = dir / "qwen2.5-0.5b-ax650";
  std::filesystem::create_directories(model);
  write_file(model / "l0.axmodel", std::string(100, 'a'));
  write_file(model / "l1.axmodel", std::string(50, 'b'));
  write_file(model / "tokenizer.txt", std::string(1000, 'c'));  // not counted
  EXPECT_EQ(*detect_model_format(model / "l1.axmodel"), ModelFileFormat::kAxmodel);
  EXPECT_EQ(*detect_model_format(model), ModelFileFormat::kAxmodel);
  const auto j = describe_non_gguf(model);
  ASSERT_TRUE(j.ok()) << j.error().message;
  EXPECT_EQ((*j)["format"], "axmodel");
  EXPECT_EQ((*j)["size_bytes"], 150);
  EXPECT_EQ((*j)["file_count"], 2);
  std::filesystem::remove_all(dir);
}

TEST(NonGguf, GgufIsRecognizedByMagicWhateverTheExtension) {
  const auto dir = tokscope::testing::fresh_test_dir();
  gguf::GgufWriter w;
  w.set_u32("k", 1);
  const auto path = dir / "model.rkllm";
  ASSERT_TRUE(w.write(path).ok());
  EXPECT_EQ(*detect_model_format(path), ModelFileFormat::kGguf);
  const auto refused = describe_non_gguf(path);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("is a GGUF file"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(NonGguf, UnknownAndMissing) {
  const auto dir = tokscope::testing::fresh_test_dir();
  write_file(dir / "weights.bin", "abcd");
  EXPECT_EQ(*detect_model_format(dir / "weights.bin"), ModelFileFormat::kUnknown);
  const auto unknown = describe_non_gguf(dir / "weights.bin");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().kind, ErrorKind::kInput);
  EXPECT_NE(unknown.error().message.find("not .rkllm or .axmodel"), std::string::npos);
  const auto missing = detect_model_format(dir / "nope.rkllm");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("no such file"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tokscope::model
