#include "engines/openai/sse_parser.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tokscope::engines::openai {
namespace {

struct Seen {
  std::string type, data, id;
  bool operator==(const Seen&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Seen& s) {
  return os << "{" << s.type << "|" << s.data << "|" << s.id << "}";
}

// Feeds `pieces` in order; returns the events seen, failing the test on a parse error.
std::vector<Seen> parse_pieces(SseParser& parser, const std::vector<std::string>& pieces) {
  std::vector<Seen> seen;
  for (const auto& p : pieces) {
    auto r = parser.feed(p, [&](const SseEvent& e) {
      seen.push_back({std::string(e.type), std::string(e.data), std::string(e.id)});
    });
    EXPECT_TRUE(r.ok()) << r.error().message;
  }
  return seen;
}

std::vector<Seen> parse_all(const std::string& stream) {
  SseParser parser;
  return parse_pieces(parser, {stream});
}

// A stream exercising every rule at once: comments, keep-alives, event/id/retry, multi-line data,
// "data:" with and without the space, LF / CRLF / CR line ends, an event without data, [DONE].
const std::string kMixedStream =
    ": keep-alive\n\n"
    "data: {\"a\":1}\n\n"
    "event: update\r\nid: 7\r\ndata:no-space\r\ndata:  two spaces\r\n\r\n"
    "retry: 1500\rdata: cr-only\r\r"
    "event: ignored-without-data\n\n"
    ":comment\ndata\ndata: after-empty\n\n"
    "data: [DONE]\n\n";

const std::vector<Seen> kMixedEvents = {
    {"message", "{\"a\":1}", ""}, {"update", "no-space\n two spaces", "7"},
    {"message", "cr-only", "7"},  {"message", "\nafter-empty", "7"},
    {"message", "[DONE]", "7"},
};

TEST(SseParser, ParsesEveryFieldRuleOfAMixedStream) {
  EXPECT_EQ(parse_all(kMixedStream), kMixedEvents);
}

TEST(SseParser, EverySplitPointGivesTheSameEvents) {
  for (std::size_t cut = 0; cut <= kMixedStream.size(); ++cut) {
    SseParser parser;
    const auto seen = parse_pieces(parser, {kMixedStream.substr(0, cut), kMixedStream.substr(cut)});
    EXPECT_EQ(seen, kMixedEvents) << "split at byte " << cut;
    EXPECT_FALSE(parser.has_pending_event()) << "split at byte " << cut;
  }
}

TEST(SseParser, EveryPairOfSplitPointsGivesTheSameEvents) {
  for (std::size_t a = 0; a <= kMixedStream.size(); ++a) {
    for (std::size_t b = a; b <= kMixedStream.size(); ++b) {
      SseParser parser;
      const auto seen = parse_pieces(
          parser,
          {kMixedStream.substr(0, a), kMixedStream.substr(a, b - a), kMixedStream.substr(b)});
      ASSERT_EQ(seen, kMixedEvents) << "splits at " << a << " and " << b;
    }
  }
}

TEST(SseParser, OneByteAtATimeGivesTheSameEvents) {
  SseParser parser;
  std::vector<std::string> bytes;
  for (const char c : kMixedStream) bytes.emplace_back(1, c);
  EXPECT_EQ(parse_pieces(parser, bytes), kMixedEvents);
}

TEST(SseParser, CrAtTheEndOfOneReadAndLfAtTheStartOfTheNextAreOneLineEnd) {
  SseParser parser;
  // If the CR and LF were two line ends, the LF would be a blank line dispatching "a" early,
  // and "b" would be a separate event.
  const auto seen = parse_pieces(parser, {"data: a\r", "\ndata: b\r", "\n\r", "\n"});
  EXPECT_EQ(seen, (std::vector<Seen>{{"message", "a\nb", ""}}));
}

TEST(SseParser, CrCrIsALineEndAndABlankLine) {
  SseParser parser;
  const auto seen = parse_pieces(parser, {"data: a\r", "\r"});
  EXPECT_EQ(seen, (std::vector<Seen>{{"message", "a", ""}}));
}

TEST(SseParser, SeveralFramesInOneReadAndCommentsAreCounted) {
  SseParser parser;
  const auto seen = parse_pieces(parser, {": ping\n\ndata: 1\n\ndata: 2\n\n: ping\n\n"});
  EXPECT_EQ(seen.size(), 2U);
  EXPECT_EQ(parser.comment_lines(), 2U);
  EXPECT_EQ(parser.events_dispatched(), 2U);
}

TEST(SseParser, AnEventIsNotDispatchedBeforeItsBlankLine) {
  SseParser parser;
  EXPECT_TRUE(parse_pieces(parser, {"data: partial\n"}).empty());
  EXPECT_TRUE(parser.has_pending_event());  // the stream was cut mid-frame
  EXPECT_EQ(parse_pieces(parser, {"\n"}).size(), 1U);
  EXPECT_FALSE(parser.has_pending_event());
}

TEST(SseParser, DoneIsRecognisedOnlyAsTheWholeData) {
  const auto seen = parse_all("data: [DONE]\n\ndata:[DONE]\n\ndata: [DONE] \n\ndata: x[DONE]\n\n");
  ASSERT_EQ(seen.size(), 4U);
  std::vector<bool> done;
  SseParser parser;
  auto r = parser.feed("data: [DONE]\n\ndata:[DONE]\n\ndata: [DONE] \n\ndata: x[DONE]\n\n",
                       [&](const SseEvent& e) { done.push_back(e.is_done()); });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(done, (std::vector<bool>{true, true, false, false}));
}

TEST(SseParser, LlamaCppErrorLineBecomesAnErrorEvent) {
  const auto seen = parse_all("data: {\"content\":\"a\"}\n\nerror: {\"code\":500}\n\n");
  EXPECT_EQ(seen, (std::vector<Seen>{{"message", "{\"content\":\"a\"}", ""},
                                     {"error", "{\"code\":500}", ""}}));
}

TEST(SseParser, RetryTakesOnlyDigitsAndIdPersists) {
  SseParser parser;
  const auto seen = parse_pieces(parser, {"retry: 250\nretry: 9x\nid: a\ndata: 1\n\ndata: 2\n\n"});
  ASSERT_EQ(seen.size(), 2U);
  EXPECT_EQ(parser.retry_ms(), 250U);
  EXPECT_EQ(seen[1].id, "a");
}

TEST(SseParser, SkipsALeadingUtf8Bom) {
  EXPECT_EQ(parse_all("\xEF\xBB\xBF"
                      "data: x\n\n"),
            (std::vector<Seen>{{"message", "x", ""}}));
  SseParser parser;  // BOM split across reads
  EXPECT_EQ(parse_pieces(parser, {"\xEF",
                                  "\xBB\xBF"
                                  "da",
                                  "ta: x\n\n"}),
            (std::vector<Seen>{{"message", "x", ""}}));
}

TEST(SseParser, AnOversizeLineIsAStickyErrorAndNeverGrowsTheBuffer) {
  SseParser parser(64);
  std::string huge(40, 'x');
  int events = 0;
  auto on_event = [&](const SseEvent&) { ++events; };
  ASSERT_TRUE(parser.feed("data: " + huge, on_event).ok());
  auto r = parser.feed(huge, on_event);  // the same line, now 86 bytes
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kEngine);
  EXPECT_NE(r.error().message.find("more than 64 bytes"), std::string::npos) << r.error().message;
  EXPECT_TRUE(parser.failed());
  EXPECT_LE(parser.buffer_capacity_bytes(), 64U + 65U + 32U + 64U);
  EXPECT_FALSE(parser.feed("\n\ndata: ok\n\n", on_event).ok());  // sticky
  EXPECT_EQ(events, 0);
}

TEST(SseParser, AnOversizeLineWithinOneReadIsAnError) {
  SseParser parser(16);
  auto r = parser.feed("data: 0123456789abcdef\n\n", [](const SseEvent&) {});
  EXPECT_FALSE(r.ok());
}

TEST(SseParser, ManyShortDataLinesAreCappedToo) {
  SseParser parser(32);
  Expected<void> r;
  for (int i = 0; i < 100 && r.ok(); ++i) r = parser.feed("data: abcdef\n", [](const SseEvent&) {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("data"), std::string::npos);
}

TEST(SseParser, ALineExactlyAtTheCapIsAccepted) {
  SseParser parser(16);
  std::vector<std::string> data;
  auto r =
      parser.feed("data: 0123456789\n\n", [&](const SseEvent& e) { data.emplace_back(e.data); });
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(data, std::vector<std::string>{"0123456789"});
}

TEST(SseParser, BuffersStopGrowingOnceWarmedUp) {
  SseParser parser;
  const std::string frame = "data: {\"choices\":[{\"delta\":{\"content\":\"token\"}}]}\n\n";
  std::size_t events = 0;
  auto on_event = [&](const SseEvent&) { ++events; };
  ASSERT_TRUE(parser.feed(frame.substr(0, 10), on_event).ok());
  ASSERT_TRUE(parser.feed(frame.substr(10), on_event).ok());
  const std::size_t warm = parser.buffer_capacity_bytes();
  for (int i = 0; i < 1000; ++i) {
    const auto cut = static_cast<std::size_t>(i) % frame.size();
    ASSERT_TRUE(parser.feed(frame.substr(0, cut), on_event).ok());
    ASSERT_TRUE(parser.feed(frame.substr(cut), on_event).ok());
  }
  EXPECT_EQ(events, 1001U);
  EXPECT_EQ(parser.buffer_capacity_bytes(), warm);
}

TEST(SseParser, ReservesItsBuffersUpFront) {
  SseParser parser;
  EXPECT_GE(parser.buffer_capacity_bytes(), 8192U);
}

}  // namespace
}  // namespace tokscope::engines::openai
