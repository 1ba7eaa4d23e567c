// Tests of IpAddress: parsing, canonical printing, ordering and hashing.
#include "toposcope/base/ip_address.h"

#include <gtest/gtest.h>

#include <map>
#include <unordered_set>

namespace toposcope {
namespace ip_address_test {

TEST(IpAddress, ParsesAndPrintsIpv4) {
  auto a = IpAddress::Parse("10.0.0.1");
  ASSERT_TRUE(a.has_value());
  EXPECT_TRUE(a->is_v4());
  EXPECT_EQ(a->ToString(), "10.0.0.1");
  EXPECT_EQ(a->v4_host_order(), 0x0a000001u);
  EXPECT_EQ(a->bytes().size(), 4u);
  EXPECT_EQ(*a, IpAddress::V4(0x0a000001u));
  const uint8_t b[4] = {192, 168, 56, 129};
  EXPECT_EQ(IpAddress::V4(b).ToString(), "192.168.56.129");
  EXPECT_EQ(IpAddress().ToString(), "0.0.0.0");
}

TEST(IpAddress, ParsesAndPrintsIpv6Canonically) {
  auto a = IpAddress::Parse("fd02:0000:0:0::0001");
  ASSERT_TRUE(a.has_value());
  EXPECT_TRUE(a->is_v6());
  EXPECT_EQ(a->ToString(), "fd02::1");
  EXPECT_EQ(a->bytes().size(), 16u);
  EXPECT_EQ(a->v4_host_order(), 0u);
  EXPECT_EQ(IpAddress::Parse("FD02::1")->ToString(), "fd02::1");
  EXPECT_EQ(IpAddress::Parse("::")->ToString(), "::");
  EXPECT_EQ(IpAddress::Parse("::ffff:1.2.3.4")->ToString(), "::ffff:1.2.3.4");
  EXPECT_EQ(IpAddress::Parse("2001:db8:0:0:1:0:0:1")->ToString(), "2001:db8::1:0:0:1");
}

TEST(IpAddress, RejectsBadText) {
  for (const char* bad :
       {"", " 10.0.0.1", "10.0.0.1 ", "10.0.0", "10.0.0.256", "10.0.0.1.2", "1.2.3.04", "fd02:::1",
        "fd02::1%eth0", "[fd02::1]", "gggg::1", "10.0.0.1/24", "localhost", "1:2:3:4:5:6:7:8:9"}) {
    EXPECT_FALSE(IpAddress::Parse(bad).has_value()) << bad;
  }
  EXPECT_FALSE(IpAddress::Parse(std::string_view("10.0.0.1\0", 9)).has_value());
  EXPECT_FALSE(IpAddress::Parse(std::string(100, '1')).has_value());
}

TEST(IpAddress, OrdersV4BeforeV6AndByBytes) {
  const auto a = *IpAddress::Parse("10.0.0.1");
  const auto b = *IpAddress::Parse("10.0.0.2");
  const auto c = *IpAddress::Parse("9.255.255.255");
  const auto v6 = *IpAddress::Parse("::1");
  EXPECT_LT(a, b);
  EXPECT_LT(c, a);
  EXPECT_LT(b, v6);
  // ::a00:1 has the same leading bytes pattern only in v6 space: never equal to 10.0.0.1.
  EXPECT_NE(a, *IpAddress::Parse("::a00:1"));
  std::map<IpAddress, int> m{{b, 2}, {a, 1}, {v6, 3}};
  EXPECT_EQ(m.begin()->first, a);
  EXPECT_EQ(m.rbegin()->first, v6);
}

TEST(IpAddress, HashesStably) {
  const auto a = *IpAddress::Parse("10.0.0.1");
  EXPECT_EQ(a.Hash(), IpAddress::V4(0x0a000001u).Hash());
  EXPECT_NE(a.Hash(), IpAddress::Parse("10.0.0.2")->Hash());
  EXPECT_NE(IpAddress::Parse("0.0.0.0")->Hash(), IpAddress::Parse("::")->Hash());
  std::unordered_set<IpAddress> s{a, *IpAddress::Parse("fd02::1"), a};
  EXPECT_EQ(s.size(), 2u);
}

}  // namespace ip_address_test
}  // namespace toposcope
