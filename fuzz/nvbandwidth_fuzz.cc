// libFuzzer target for the nvbandwidth reader: the P2P round trip of p2p_round_trip.h.
#include "p2p_round_trip.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return p2p_fuzz::RoundTrip(
      data, size,
      [](std::string_view t, std::string_view s, toposcope::Diagnostics& d, toposcope::ReadCounts& c) {
        return toposcope::formats::ParseNvbandwidth(t, s, d, c);
      },
      [](const toposcope::formats::P2pReport& r) { return toposcope::formats::WriteNvbandwidth(r); });
}
