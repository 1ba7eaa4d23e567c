// base/ip_address: an IPv4 or IPv6 address as a value type (16 bytes + a v6 flag) that can key
// ordered and hashed maps. Parses the usual text forms and prints the canonical one
// (inet_ntop style: dotted quad for IPv4, RFC 5952 compressed lowercase hex for IPv6).
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace toposcope {

class IpAddress {
 public:
  // The unspecified IPv4 address 0.0.0.0.
  IpAddress() = default;

  // From 4 network-order bytes. (Inline, as V6 and Hash: a capture pass builds two addresses and
  // hashes them for every packet.)
  static IpAddress V4(const uint8_t bytes[4]) {
    IpAddress a;
    __builtin_memcpy(a.bytes_.data(), bytes, 4);
    return a;
  }
  // From a host-order 32-bit value (0x0a000001 is 10.0.0.1).
  static IpAddress V4(uint32_t host_order);
  // From 16 network-order bytes.
  static IpAddress V6(const uint8_t bytes[16]) {
    IpAddress a;
    a.is_v6_ = true;
    __builtin_memcpy(a.bytes_.data(), bytes, 16);
    return a;
  }

  // Parses "10.0.0.1" or an IPv6 text ("fd02::1", "::ffff:1.2.3.4"; no zone "%eth0", no
  // brackets). Returns nullopt on anything else (leading/trailing spaces included).
  static std::optional<IpAddress> Parse(std::string_view text);

  [[nodiscard]] bool is_v6() const { return is_v6_; }
  [[nodiscard]] bool is_v4() const { return !is_v6_; }
  // The address bytes in network order: 4 for IPv4, 16 for IPv6.
  [[nodiscard]] std::span<const uint8_t> bytes() const {
    return {bytes_.data(), is_v6_ ? size_t{16} : size_t{4}};
  }
  // IPv4 only: the address as a host-order integer (0 for IPv6).
  [[nodiscard]] uint32_t v4_host_order() const;

  // Canonical text: "10.0.0.1", "fd02::1".
  [[nodiscard]] std::string ToString() const;

  // IPv4 sorts before IPv6; then by bytes.
  friend auto operator<=>(const IpAddress&, const IpAddress&) = default;
  // The 16 bytes compared in place (the defaulted one called memcmp for every flow-key compare
  // of a capture pass).
  friend bool operator==(const IpAddress& a, const IpAddress& b) {
    return a.is_v6_ == b.is_v6_ && __builtin_memcmp(a.bytes_.data(), b.bytes_.data(), 16) == 0;
  }

  // A stable 64-bit hash (FNV-1a over the flag and bytes); the same on every run.
  [[nodiscard]] uint64_t Hash() const {
    uint64_t h = 1469598103934665603ULL;
    h = (h ^ (is_v6_ ? 6u : 4u)) * 1099511628211ULL;
    const size_t n = is_v6_ ? 16 : 4;
    for (size_t i = 0; i < n; ++i) h = (h ^ bytes_[i]) * 1099511628211ULL;
    return h;
  }

 private:
  bool is_v6_ = false;               // first, so <=> orders v4 before v6
  std::array<uint8_t, 16> bytes_{};  // IPv4 uses the first 4, the rest stay 0
};

}  // namespace toposcope

template <>
struct std::hash<toposcope::IpAddress> {
  size_t operator()(const toposcope::IpAddress& a) const noexcept { return static_cast<size_t>(a.Hash()); }
};
