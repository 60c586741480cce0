// tilescope/base/regex.h: RE2 with the ECMAScript details the callers rely on, in
// linear time over any text.
#include <gtest/gtest.h>

#include "tilescope/base/regex.h"

namespace tilescope {
namespace {

TEST(Regex, SearchReturnsGroupsAsViewsIntoTheText) {
  const Regex re(R"((\w+)\.py:(\d+)(?::(\d+))?: error)");
  const std::string text = "in kern.py:12: error: x";
  RegexMatch m;
  ASSERT_TRUE(re.search(text, m));
  EXPECT_EQ(re.groups(), 3u);
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0], "kern.py:12: error");
  EXPECT_EQ(m.str(1), "kern");
  EXPECT_EQ(m[2], "12");
  EXPECT_FALSE(m.matched(3));  // the optional column took no part
  EXPECT_EQ(m[3], "");
  EXPECT_EQ(m.position(0), 3u);
  EXPECT_EQ(m.position(3), std::string::npos);
  EXPECT_EQ(m[9], "");
  EXPECT_FALSE(re.search("kern.py: error"));
}

TEST(Regex, AnEmptyGroupThatTookPartIsMatched) {
  RegexMatch m;
  ASSERT_TRUE(Regex("a(b*)c").search("ac", m));
  EXPECT_TRUE(m.matched(1));
  EXPECT_EQ(m[1], "");
  ASSERT_TRUE(Regex("(x*)").search(std::string_view(), m));  // an empty view without data
  EXPECT_TRUE(m.matched(1));
}

TEST(Regex, FullMatchAnchorsBothEnds) {
  const Regex re(R"(tilescope\.[A-Za-z0-9]{8})");
  EXPECT_TRUE(re.fullMatch("tilescope.AbC12345"));
  EXPECT_FALSE(re.fullMatch("tilescope.AbC12345/x"));
  EXPECT_FALSE(re.fullMatch("/tilescope.AbC12345"));
  EXPECT_TRUE(re.search("/tilescope.AbC12345/x"));
  // The lazy prefix takes the first ":N:" for the line, as std::regex_match did.
  RegexMatch m;
  ASSERT_TRUE(Regex(R"(^.*?:(\d+):(?:\d+:)? error: (.*)$)").fullMatch("a:b.cu:12:5: error: bad", m));
  EXPECT_EQ(m[1], "12");
  EXPECT_EQ(m[2], "bad");
}

TEST(Regex, AnchorsAndDotsReadAsInECMAScript) {
  // `^` and `$` anchor the whole text unless multiline.
  EXPECT_FALSE(Regex("^def f").search("x = 1\ndef f():"));
  EXPECT_TRUE(Regex("^def f", RegexOptions{false, true}).search("x = 1\ndef f():"));
  EXPECT_FALSE(Regex("1$").search("x = 1\ny"));
  EXPECT_TRUE(Regex("(?m)1$").search("x = 1\ny"));
  // `.` stops at '\n' and '\r' (ECMAScript); a class or an escaped dot is left alone.
  EXPECT_FALSE(Regex("^a.*b$").search("a\rb"));
  EXPECT_FALSE(Regex("^a.*b$").search("a\nb"));
  EXPECT_TRUE(Regex("^a[^\\n]*b$").search("a\rb"));
  EXPECT_TRUE(Regex("a[.]b").search("a.b"));
  EXPECT_FALSE(Regex("a[.]b").search("axb"));
  EXPECT_TRUE(Regex("a\\.b").search("a.b"));
  EXPECT_FALSE(Regex("a\\.b").search("axb"));
  EXPECT_TRUE(Regex("[]x.]+").fullMatch("]x."));
}

TEST(Regex, BytesAreCharactersWhateverTheirEncoding) {
  // Invalid UTF-8 is searched byte by byte, as std::regex searched a std::string.
  const std::string text = "k\xff\xfe.py:3:1: error: \xc3";
  RegexMatch m;
  ASSERT_TRUE(Regex(R"(^[^\n]*?:(\d+):(\d+): error: (.)$)").search(text, m));
  EXPECT_EQ(m[1], "3");
  EXPECT_EQ(m[3], "\xc3");
  EXPECT_TRUE(Regex("^.{3}$").search("\xe2\x82\xac"));  // one UTF-8 character, three bytes
}

TEST(Regex, CaseIsIgnoredOnRequest) {
  EXPECT_FALSE(Regex("fatal error").search("NVCC FATAL ERROR"));
  EXPECT_TRUE(Regex("fatal error", RegexOptions{true}).search("NVCC FATAL ERROR"));
  EXPECT_TRUE(Regex("(?i)fatal error").search("NVCC FATAL ERROR"));
}

TEST(Regex, ReplaceAllTakesTheReplacementLiterally) {
  EXPECT_EQ(Regex("ptxas-blackwell").replaceAll("ptxas-blackwell info : x\nptxas-blackwell y", "ptxas"),
            "ptxas info : x\nptxas y");
  EXPECT_EQ(Regex("(_ptrs?|Ptrs?|_p)$").replaceAll("a_ptr", ""), "a");
  EXPECT_EQ(Regex("(b)").replaceAll("abc", "\\1$1$&"), "a\\1$1$&c");
  EXPECT_EQ(Regex("x*").replaceAll("abc", "-"), "-a-b-c-");
  EXPECT_EQ(Regex("z").replaceAll("abc", "-"), "abc");
  EXPECT_EQ(Regex().replaceAll("abc", "-"), "abc");
}

TEST(Regex, ForEachMatchVisitsEveryMatchInOrderUntilToldToStop) {
  std::vector<std::string> seen;
  const Regex re(R"((\d+) registers)");
  const std::string text = "Used 10 registers; Used 20 registers; Used 30 registers";
  EXPECT_EQ(re.forEachMatch(text,
                            [&](const RegexMatch& m) {
                              seen.push_back(m.str(1));
                              return true;
                            }),
            3u);
  EXPECT_EQ(seen, (std::vector<std::string>{"10", "20", "30"}));
  EXPECT_EQ(re.forEachMatch(text, [](const RegexMatch&) { return false; }), 1u);
}

TEST(Regex, WhatRE2CannotMatchInLinearTimeIsAnErrorNamingThePattern) {
  for (const char* bad : {"(a)\\1", "foo(?=bar)", "(?<!x)y", "(unclosed", "a{2,1}", "[z-a]"}) {
    try {
      Regex re(bad);
      ADD_FAILURE() << bad << " compiled";
    } catch (const RegexError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
      EXPECT_FALSE(e.reason().empty());
    }
  }
  EXPECT_THROW(Regex("(a)\\1"), std::invalid_argument);  // a RegexError is an invalid_argument
}

TEST(Regex, ADefaultRegexMatchesNothingAndCopiesShareThePattern) {
  const Regex none;
  EXPECT_FALSE(none.search(""));
  EXPECT_FALSE(none.fullMatch(""));
  EXPECT_EQ(none.pattern(), "");
  EXPECT_EQ(none.groups(), 0u);
  Regex a("ab+");
  Regex b = a;
  Regex c;
  c = std::move(a);
  EXPECT_TRUE(b.search("xabbb"));
  EXPECT_TRUE(c.search("xabbb"));
  EXPECT_EQ(b.pattern(), "ab+");
}

// The inputs that overflowed std::regex's stack: linear time, no recursion.
TEST(Regex, A200000CharacterLineIsMatchedInLinearTime) {
  const std::string line(200000, 'A');
  const std::string log = "error: NameError('" + line + "')\n\nmore";
  EXPECT_FALSE(Regex(R"(^[^\n]*?:(\d+):(\d+): error: )").search(log));
  RegexMatch m;
  ASSERT_TRUE(Regex(R"(^(.*)$)").fullMatch(line, m));
  EXPECT_EQ(m[1].size(), line.size());
  EXPECT_TRUE(Regex(R"(\s*x$)").search(std::string(200000, ' ') + "x"));
  EXPECT_EQ(Regex("A").replaceAll(line, "").size(), 0u);
  EXPECT_EQ(Regex("A+").forEachMatch(line, [](const RegexMatch&) { return true; }), 1u);
}

}  // namespace
}  // namespace tilescope
