// File: test/cel/net_library_test.cc
// Kubernetes IP and CIDR libraries: netip parsing rules, Kubernetes rejections, predicates.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "controller/cel/environment.h"
#include "controller/cel/internal/function.h"
#include "controller/cel/program.h"
#include "gtest/gtest.h"
#include "test/cel/library_test_util.h"

namespace gpuprofile::cel::internal {
namespace net_library_test {
namespace {

const testing::LibraryUnderTest& Lib() {
  static const auto* lib = new testing::LibraryUnderTest({RegisterNetLibrary});
  return *lib;
}
Value Call(absl::string_view fn, absl::string_view id, std::vector<Value> args) {
  return Lib().Call(fn, id, std::move(args));
}
using testing::D;
using testing::Eval;
using testing::I;
using testing::L;
using testing::S;
using testing::Show;

Value Ip(const std::string& s) { return Call("ip", "string_to_ip", {S(s)}); }
Value Cidr(const std::string& s) { return Call("cidr", "string_to_cidr", {S(s)}); }

TEST(NetLibraryTest, ParsesAndPrintsCanonically) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"127.0.0.1", "127.0.0.1"},
      {"::1", "::1"},
      {"2001:DB8:0:0:0:0:0:1", "2001:db8::1"},
      {"2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"},
      {"fe80:0:0:0:0:0:0:0", "fe80::"},
      {"::", "::"},
      {"1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"},
      {"::1.2.3.4", "::102:304"},
      {"1:0:1:0:1:0:1:0", "1:0:1:0:1:0:1:0"},
  };
  for (const auto& [in, want] : cases) {
    Value ip = Ip(in);
    ASSERT_FALSE(ip.is_error()) << in << ": " << Show(ip);
    EXPECT_EQ(Show(Call("string", "ip_to_string", {ip})), want) << in;
  }
  EXPECT_TRUE(Call("ip.isCanonical", "ip_is_canonical", {S("2001:db8::1")}).IsTrue());
  EXPECT_TRUE(Call("ip.isCanonical", "ip_is_canonical", {S("2001:DB8::1")}).IsFalse());
  EXPECT_TRUE(Call("ip.isCanonical", "ip_is_canonical", {S("2001:db8:0::1")}).IsFalse());
  EXPECT_EQ(Show(Call("ip.isCanonical", "ip_is_canonical", {S("bad")})),
            "error: IP Address \"bad\" parse error during conversion from string: "
            "ParseAddr(\"bad\"): unable to parse IP");
}

TEST(NetLibraryTest, RejectsWhatKubernetesRejects) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"010.0.0.1",
       "IP Address \"010.0.0.1\" parse error during conversion from string: "
       "ParseAddr(\"010.0.0.1\"): IPv4 field has octet with leading zero"},
      {"256.0.0.1",
       "IP Address \"256.0.0.1\" parse error during conversion from string: "
       "ParseAddr(\"256.0.0.1\"): IPv4 field has value >255"},
      {"1.2.3",
       "IP Address \"1.2.3\" parse error during conversion from string: ParseAddr(\"1.2.3\"): "
       "IPv4 address too short"},
      {"1..2.3",
       "IP Address \"1..2.3\" parse error during conversion from string: "
       "ParseAddr(\"1..2.3\"): IPv4 field must have at least one digit (at \".2.3\")"},
      {"fe80::1%eth0", "IP address \"fe80::1%eth0\" with zone value is not allowed"},
      {"::ffff:1.2.3.4", "IPv4-mapped IPv6 address \"::ffff:1.2.3.4\" is not allowed"},
      {"1:2:3:4:5:6:7:8:9",
       "IP Address \"1:2:3:4:5:6:7:8:9\" parse error during conversion from string: "
       "ParseAddr(\"1:2:3:4:5:6:7:8:9\"): trailing garbage after address (at \"9\")"},
      {"1::2::3",
       "IP Address \"1::2::3\" parse error during conversion from string: "
       "ParseAddr(\"1::2::3\"): multiple :: in address (at \":3\")"},
      {"", "IP Address \"\" parse error during conversion from string: ParseAddr(\"\"): unable "
           "to parse IP"},
  };
  for (const auto& [in, want] : cases) {
    EXPECT_EQ(Show(Ip(in)), "error: " + want) << in;
    EXPECT_TRUE(Call("isIP", "is_ip", {S(in)}).IsFalse()) << in;
  }
}

TEST(NetLibraryTest, Predicates) {
  struct P {
    const char* fn;
    const char* id;
    const char* ip;
    bool want;
  };
  const std::vector<P> cases = {
      {"isUnspecified", "ip_is_unspecified", "0.0.0.0", true},
      {"isUnspecified", "ip_is_unspecified", "::", true},
      {"isUnspecified", "ip_is_unspecified", "::1", false},
      {"isLoopback", "ip_is_loopback", "127.0.0.1", true},
      {"isLoopback", "ip_is_loopback", "::1", true},
      {"isLoopback", "ip_is_loopback", "2001:db8::abcd", false},
      {"isLinkLocalMulticast", "ip_is_link_local_multicast", "224.0.0.1", true},
      {"isLinkLocalMulticast", "ip_is_link_local_multicast", "224.0.1.1", false},
      {"isLinkLocalMulticast", "ip_is_link_local_multicast", "ff02::1", true},
      {"isLinkLocalMulticast", "ip_is_link_local_multicast", "fd00::1", false},
      {"isLinkLocalUnicast", "ip_is_link_local_unicast", "169.254.169.254", true},
      {"isLinkLocalUnicast", "ip_is_link_local_unicast", "fe80::1", true},
      {"isLinkLocalUnicast", "ip_is_link_local_unicast", "fd80::1", false},
      {"isGlobalUnicast", "ip_is_global_unicast", "192.168.0.1", true},
      {"isGlobalUnicast", "ip_is_global_unicast", "255.255.255.255", false},
      {"isGlobalUnicast", "ip_is_global_unicast", "2001:db8::abcd", true},
      {"isGlobalUnicast", "ip_is_global_unicast", "ff00::1", false},
  };
  for (const P& c : cases) {
    EXPECT_EQ(Call(c.fn, c.id, {Ip(c.ip)}).IsTrue(), c.want) << c.fn << " " << c.ip;
  }
  EXPECT_EQ(Show(Call("family", "ip_family", {Ip("127.0.0.1")})), "4");
  EXPECT_EQ(Show(Call("family", "ip_family", {Ip("::1")})), "6");
}

TEST(NetLibraryTest, Cidr) {
  Value net = Cidr("192.168.0.0/24");
  ASSERT_FALSE(net.is_error()) << Show(net);
  EXPECT_TRUE(Call("containsIP", "cidr_contains_ip_ip", {net, Ip("192.168.0.1")}).IsTrue());
  EXPECT_TRUE(Call("containsIP", "cidr_contains_ip_string", {net, S("192.168.1.1")}).IsFalse());
  EXPECT_TRUE(Call("containsIP", "cidr_contains_ip_string", {net, S("::1")}).IsFalse());
  EXPECT_EQ(Show(Call("containsIP", "cidr_contains_ip_string", {net, S("bad")})),
            "error: no such overload: containsIP");
  EXPECT_TRUE(Call("containsCIDR", "cidr_contains_cidr", {net, Cidr("192.168.0.0/25")}).IsTrue());
  EXPECT_TRUE(
      Call("containsCIDR", "cidr_contains_cidr_string", {net, S("192.168.0.0/23")}).IsFalse());
  // Kubernetes compares against the other CIDR's unmasked address (see net_library.cc).
  EXPECT_TRUE(Call("containsCIDR", "cidr_contains_cidr_string",
                   {Cidr("2001:db8::/32"), S("2001:db8::/33")})
                  .IsTrue());
  Value host = Cidr("192.168.0.1/24");
  EXPECT_EQ(Show(Call("string", "ip_to_string", {Call("ip", "cidr_ip", {host})})), "192.168.0.1");
  EXPECT_EQ(Show(Call("string", "cidr_to_string", {Call("masked", "cidr_masked", {host})})),
            "192.168.0.0/24");
  EXPECT_EQ(Show(Call("prefixLength", "cidr_prefix_length", {Cidr("::1/128")})), "128");
  EXPECT_EQ(Show(Cidr("192.168.0.0/")),
            "error: network address parse error during conversion from string: network address "
            "parse error during conversion from string: netip.ParsePrefix(\"192.168.0.0/\"): bad "
            "bits after slash: \"\"");
  EXPECT_EQ(Show(Cidr("10.0.0.0/08")),
            "error: network address parse error during conversion from string: network address "
            "parse error during conversion from string: netip.ParsePrefix(\"10.0.0.0/08\"): bad "
            "bits after slash: \"08\"");
  EXPECT_EQ(Show(Cidr("10.0.0.0/33")),
            "error: network address parse error during conversion from string: network address "
            "parse error during conversion from string: netip.ParsePrefix(\"10.0.0.0/33\"): "
            "prefix length out of range");
  EXPECT_TRUE(Call("isCIDR", "is_cidr", {S("::ffff:1.2.3.4/120")}).IsFalse());
  EXPECT_TRUE(Call("isCIDR", "is_cidr", {S("fe80::/10")}).IsTrue());
}

TEST(NetLibraryTest, EqualityAndTypes) {
  EXPECT_TRUE(Equal(Ip("::1"), Ip("0:0::1")).IsTrue());
  EXPECT_TRUE(Equal(Ip("::1"), Ip("::2")).IsFalse());
  EXPECT_TRUE(Equal(Cidr("10.0.0.1/8"), Cidr("10.0.0.1/8")).IsTrue());
  EXPECT_TRUE(Equal(Cidr("10.0.0.1/8"), Call("masked", "cidr_masked", {Cidr("10.0.0.1/8")}))
                  .IsFalse());
  EXPECT_EQ(Ip("::1").TypeName(), "net.IP");
  EXPECT_EQ(Cidr("::1/128").TypeName(), "net.CIDR");
}

TEST(NetLibraryTest, GatesAndExpressions) {
  Lib().ExpectGates(30, "Kubernetes ");
  EXPECT_EQ(Eval("ip('10.0.0.1').family() == 4 && cidr('10.0.0.0/8').containsIP('10.1.2.3')"),
            "true");
  EXPECT_EQ(Eval("string(cidr('192.168.0.1/24').masked()) == '192.168.0.0/24'"), "true");
  EXPECT_EQ(Eval("isIP('010.0.0.1')"), "false");
}
}  // namespace
}  // namespace net_library_test
}  // namespace gpuprofile::cel::internal
