// check_test.cpp: SG_CHECK and fail() throw scratchgpt::Error with the one-line message built from
// their pieces; a passing check evaluates its condition once and never builds the message.
#include "core/check.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

using namespace scratchgpt;

namespace {
int g_message_builds = 0;
struct Counted {};
std::ostream& operator<<(std::ostream& os, const Counted&) {
  ++g_message_builds;
  return os << "counted";
}
}  // namespace

TEST(Check, FailJoinsThePiecesIntoTheMessage) {
  try {
    fail("cannot open '", std::string("a.bin"), "': ", 3, " tries, ", 0.5, "s");
    FAIL() << "fail() returned";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "cannot open 'a.bin': 3 tries, 0.5s");
  }
}

TEST(Check, CheckThrowsOnlyWhenFalse) {
  EXPECT_NO_THROW(SG_CHECK(1 + 1 == 2, "never"));
  try {
    const int n_embd = 30, n_head = 4;
    SG_CHECK(n_embd % n_head == 0, "n_embd (", n_embd, ") must be divisible by n_head (", n_head,
             "); pick n_embd = ", n_head * 8);
    FAIL() << "SG_CHECK did not throw";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "n_embd (30) must be divisible by n_head (4); pick n_embd = 32");
  }
}

TEST(Check, ErrorIsARuntimeError) {
  EXPECT_THROW(fail("x"), std::runtime_error);
  EXPECT_THROW(SG_CHECK(false, "x"), Error);
}

TEST(Check, ConditionEvaluatedOnceMessageOnlyOnFailure) {
  int evaluations = 0;
  g_message_builds = 0;
  SG_CHECK(++evaluations == 1, Counted{});
  EXPECT_EQ(evaluations, 1);
  EXPECT_EQ(g_message_builds, 0);
  EXPECT_THROW(SG_CHECK(++evaluations == 1, Counted{}), Error);
  EXPECT_EQ(evaluations, 2);
  EXPECT_EQ(g_message_builds, 1);
}

TEST(Check, WorksAsASingleStatementInIfElse) {
  bool thrown = false;
  try {
    if (true)
      SG_CHECK(false, "in if");
    else
      thrown = false;
  } catch (const Error&) {
    thrown = true;
  }
  EXPECT_TRUE(thrown);
}
