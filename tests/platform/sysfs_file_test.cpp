#include "platform/sysfs/sysfs_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <array>

#include "common/sysfs_fixture.hpp"
#include "platform/sysfs/live_file.hpp"

namespace tokscope::platform::sysfs {
namespace {

namespace fs = std::filesystem;
using tokscope::testing::fresh_test_dir;
using tokscope::testing::has_line;
using tokscope::testing::joined;
using tokscope::testing::write_file;

TEST(SysfsParse, TrimAndIntegers) {
  EXPECT_EQ(trim("  45230\n"), "45230");
  EXPECT_EQ(trim("\n\t "), "");
  EXPECT_EQ(parse_u64("1800000\n"), 1800000U);
  EXPECT_EQ(parse_u64("0"), 0U);
  EXPECT_EQ(parse_u64("18446744073709551615"), UINT64_MAX);
  for (const char* bad : {"", "\n", "-1", "+1", "12a", "1 2", "abc", "18446744073709551616"}) {
    EXPECT_FALSE(parse_u64(bad).has_value()) << bad;
  }
  EXPECT_EQ(parse_i64("-5000\n"), -5000);
  EXPECT_EQ(parse_i64("45230"), 45230);
  for (const char* bad : {"", "-", "+5", "4.5", "abc", "5 5"}) {
    EXPECT_FALSE(parse_i64(bad).has_value()) << bad;
  }
}

TEST(SysfsParse, WordsAndLists) {
  EXPECT_EQ(split_words(" performance  powersave\n"),
            (std::vector<std::string>{"performance", "powersave"}));
  EXPECT_TRUE(split_words("\n").empty());
  auto list = parse_u64_list("408000 600000 816000 \n");
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(*list, (std::vector<std::uint64_t>{408000, 600000, 816000}));
  EXPECT_TRUE(parse_u64_list("").value().empty());
  auto bad = parse_u64_list("408000 6x0000");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::kInput);
  EXPECT_NE(bad.error().message.find("6x0000"), std::string::npos);
}

TEST(SysfsParse, BracketedChoice) {
  EXPECT_EQ(*parse_bracketed_choice("always [madvise] never\n"), "madvise");
  EXPECT_EQ(*parse_bracketed_choice("[always] madvise never"), "always");
  EXPECT_EQ(*parse_bracketed_choice("always madvise [never]"), "never");
  EXPECT_FALSE(parse_bracketed_choice("always madvise never").ok());
  EXPECT_FALSE(parse_bracketed_choice("[always] [madvise]").ok());
  EXPECT_FALSE(parse_bracketed_choice("").ok());
  EXPECT_FALSE(parse_bracketed_choice("[]").ok());
}

TEST(SysfsParse, IndexAfterPrefix) {
  EXPECT_EQ(index_after_prefix("policy4", "policy"), 4);
  EXPECT_EQ(index_after_prefix("thermal_zone12", "thermal_zone"), 12);
  EXPECT_FALSE(index_after_prefix("policy", "policy").has_value());
  EXPECT_FALSE(index_after_prefix("policyX", "policy").has_value());
  EXPECT_FALSE(index_after_prefix("policy-1", "policy").has_value());
  EXPECT_FALSE(index_after_prefix("policy4a", "policy").has_value());
  EXPECT_FALSE(index_after_prefix("cooling_device0", "thermal_zone").has_value());
}

TEST(SysfsRead, TextAndErrorKinds) {
  const auto dir = fresh_test_dir();
  write_file(dir / "value", "42\n");
  auto text = read_text(dir / "value");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "42\n");

  auto missing = read_text(dir / "missing");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::kUnavailable);
  EXPECT_NE(missing.error().message.find((dir / "missing").string()), std::string::npos);
  EXPECT_NE(missing.error().message.find("No such file"), std::string::npos);

  auto not_dir = read_text(dir / "value" / "child");
  ASSERT_FALSE(not_dir.ok());
  EXPECT_EQ(not_dir.error().kind, ErrorKind::kUnavailable);

  auto is_dir = read_text(dir);
  ASSERT_FALSE(is_dir.ok());
  EXPECT_EQ(is_dir.error().kind, ErrorKind::kIo);
}

TEST(SysfsRead, FieldReadersReportMissingAndMalformed) {
  const auto dir = fresh_test_dir();
  write_file(dir / "good", "1800000\n");
  write_file(dir / "bad", "abc\n");
  std::vector<std::string> unavailable;

  EXPECT_EQ(read_u64(dir / "good", "an integer in kHz", Presence::kRequired, unavailable),
            1800000U);
  EXPECT_TRUE(unavailable.empty());

  EXPECT_FALSE(read_u64(dir / "bad", "an integer in kHz", Presence::kRequired, unavailable));
  ASSERT_EQ(unavailable.size(), 1U);
  EXPECT_TRUE(has_line(unavailable, {"unavailable: ", (dir / "bad").string(), "malformed",
                                     "an integer in kHz", "\"abc\""}))
      << joined(unavailable);

  unavailable.clear();
  EXPECT_FALSE(read_string(dir / "absent", Presence::kOptional, unavailable));
  EXPECT_TRUE(unavailable.empty()) << "a missing optional file is not reported";
  EXPECT_FALSE(read_string(dir / "absent", Presence::kRequired, unavailable));
  EXPECT_TRUE(has_line(unavailable, {"unavailable: ", (dir / "absent").string()}));

  unavailable.clear();
  EXPECT_FALSE(read_i64(dir / "bad", "millidegrees", Presence::kOptional, unavailable));
  EXPECT_EQ(unavailable.size(), 1U) << "a malformed optional file is reported";
  EXPECT_TRUE(read_u64_list(dir / "bad", "kHz values", Presence::kRequired, unavailable).empty());
  EXPECT_EQ(unavailable.size(), 2U);
}

TEST(SysfsRead, MalformedLineShortensAndMasks) {
  const std::string line = malformed_line("/x/temp", "an integer", std::string(100, 'a') + "\x01");
  EXPECT_NE(line.find("\"" + std::string(40, 'a') + "...\""), std::string::npos) << line;
  EXPECT_EQ(malformed_line("/x/temp", "an integer",
                           "a\x01"
                           "b"),
            "unavailable: /x/temp: malformed: expected an integer, got \"a?b\"");
}

TEST(SysfsRead, ListsIndexedDirsThroughSymlinks) {
  const auto dir = fresh_test_dir();
  fs::create_directories(dir / "real/thermal_zone3");
  fs::create_directories(dir / "class/thermal_zone10");
  fs::create_directories(dir / "class/cooling_device0");
  write_file(dir / "class/thermal_zone7", "a file, not a zone");
  fs::create_directory_symlink("../real/thermal_zone3", dir / "class/thermal_zone3");
  fs::create_directory_symlink("../real/nowhere", dir / "class/thermal_zone4");  // dangling

  auto entries = list_indexed_dirs(dir / "class", "thermal_zone");
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 2U);
  EXPECT_EQ((*entries)[0].index, 3);
  EXPECT_EQ((*entries)[0].path, dir / "class/thermal_zone3");
  EXPECT_EQ((*entries)[1].index, 10);

  auto names = list_dir_names(dir / "class");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names,
            (std::vector<std::string>{"cooling_device0", "thermal_zone10", "thermal_zone3"}));

  auto missing = list_indexed_dirs(dir / "nope", "x");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::kUnavailable);
  EXPECT_NE(missing.error().message.find((dir / "nope").string()), std::string::npos);
}

TEST(LiveFile, RereadsInPlaceChangesAndReportsDeletion) {
  const auto dir = fresh_test_dir();
  write_file(dir / "temp", "45230\n");
  auto file = LiveFile::open(dir / "temp");
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(file->read_i64(), 45230);
  EXPECT_EQ(file->read_i64(), 45230);
  write_file(dir / "temp", "-5000\n");
  EXPECT_EQ(file->read_i64(), -5000);
  write_file(dir / "temp", "abc\n");
  EXPECT_FALSE(file->read_i64().has_value());
  write_file(dir / "temp", "7\n");
  LiveFile moved = std::move(*file);
  EXPECT_EQ(moved.read_i64(), 7);
  fs::remove(dir / "temp");
  EXPECT_FALSE(moved.read_i64().has_value());
}

TEST(LiveFile, TextFillingTheBufferIsRejected) {
  const auto dir = fresh_test_dir();
  write_file(dir / "long", "0123456789");
  auto file = LiveFile::open(dir / "long");
  ASSERT_TRUE(file.ok());
  std::array<char, 10> small{};
  EXPECT_FALSE(file->read(small).has_value());
  std::array<char, 11> enough{};
  EXPECT_EQ(file->read(enough), "0123456789");
}

TEST(LiveFile, OpenErrors) {
  const auto dir = fresh_test_dir();
  auto missing = LiveFile::open(dir / "missing");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::kUnavailable);
  EXPECT_NE(missing.error().message.find("missing"), std::string::npos);
}

}  // namespace
}  // namespace tokscope::platform::sysfs
