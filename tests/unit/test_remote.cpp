// ssh destinations (issue 11, security 1): a host name can never become an ssh
// option or a shell word, and the remote command is quoted for the remote shell.
#include <gtest/gtest.h>

#include "tilescope/remote.h"

namespace tilescope {
namespace {

TEST(Remote, OrdinaryHostsAreAccepted) {
  for (const char* h : {"gpu01", "gpu01.cluster.example.org", "alice@gpu01", "10.0.0.7", "fe80::1", "my_alias-2"})
    EXPECT_EQ(remoteHostProblem(h), "") << h;
}

TEST(Remote, HostileHostsAreRefused) {
  EXPECT_NE(remoteHostProblem("-oProxyCommand=touch /tmp/pwned").find("starts with '-'"), std::string::npos);
  EXPECT_NE(remoteHostProblem("alice@-oProxyCommand=x").find("starts with '-'"), std::string::npos);
  EXPECT_NE(remoteHostProblem("-alice@gpu").find("user name starts with '-'"), std::string::npos);
  EXPECT_NE(remoteHostProblem("gpu01 rm -rf ~").find("contains ' '"), std::string::npos);
  EXPECT_NE(remoteHostProblem("gpu01;id").find("contains ';'"), std::string::npos);
  EXPECT_NE(remoteHostProblem("$(id)").find("contains '$'"), std::string::npos);
  EXPECT_NE(remoteHostProblem("gpu\n01").find("byte 10"), std::string::npos);
  EXPECT_NE(remoteHostProblem("a@b@c").find("more than one '@'"), std::string::npos);
  EXPECT_NE(remoteHostProblem("").find("empty"), std::string::npos);
  EXPECT_NE(remoteHostProblem(std::string(300, 'a')).find("255"), std::string::npos);
  EXPECT_THROW((void)sshCommand("-oProxyCommand=x"), std::invalid_argument);
}

TEST(Remote, OptionsEndBeforeTheHostAndArgumentsAreQuoted) {
  const auto argv = sshCommand("gpu01", {"run", "/data/my kernel's/x.json", "--stream"});
  const std::vector<std::string> want{"ssh", "-o", "BatchMode=yes", "--", "gpu01", "tilescope-run",
                                      "'run'", "'/data/my kernel'\\''s/x.json'", "'--stream'"};
  EXPECT_EQ(argv, want);
  EXPECT_EQ(shellQuote("$(id)"), "'$(id)'");
}

}  // namespace
}  // namespace tilescope
