// base/ip_address: see ip_address.h.
#include "toposcope/base/ip_address.h"

#include <arpa/inet.h>

#include <cstring>

namespace toposcope {

IpAddress IpAddress::V4(uint32_t host_order) {
  const uint8_t b[4] = {static_cast<uint8_t>(host_order >> 24), static_cast<uint8_t>(host_order >> 16),
                        static_cast<uint8_t>(host_order >> 8), static_cast<uint8_t>(host_order)};
  return V4(b);
}

std::optional<IpAddress> IpAddress::Parse(std::string_view text) {
  if (text.empty() || text.size() > INET6_ADDRSTRLEN) return std::nullopt;
  char buf[INET6_ADDRSTRLEN + 1];
  std::memcpy(buf, text.data(), text.size());
  buf[text.size()] = '\0';
  if (std::memchr(buf, '\0', text.size()) != nullptr) return std::nullopt;
  uint8_t b[16];
  if (text.find(':') == std::string_view::npos) {
    if (inet_pton(AF_INET, buf, b) != 1) return std::nullopt;
    return V4(b);
  }
  if (inet_pton(AF_INET6, buf, b) != 1) return std::nullopt;
  return V6(b);
}

uint32_t IpAddress::v4_host_order() const {
  if (is_v6_) return 0;
  return (uint32_t{bytes_[0]} << 24) | (uint32_t{bytes_[1]} << 16) | (uint32_t{bytes_[2]} << 8) |
         uint32_t{bytes_[3]};
}

std::string IpAddress::ToString() const {
  char buf[INET6_ADDRSTRLEN];
  if (inet_ntop(is_v6_ ? AF_INET6 : AF_INET, bytes_.data(), buf, sizeof buf) == nullptr) return {};
  return buf;
}

}  // namespace toposcope
