/* The floor for a pass over a capture: libpcap's own loop over every packet, reading two fields of
 * each (the BTH destination QP and PSN of UDP 4791 frames) so the data is touched.
 * bench/capture_pass_compare.sh builds it and runs it beside `toposcope analyze` on the same file. */
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: bare_pcap_loop CAPTURE\n");
    return 2;
  }
  char err[PCAP_ERRBUF_SIZE];
  pcap_t* p = pcap_open_offline(argv[1], err);
  if (!p) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  struct pcap_pkthdr* h;
  const u_char* d;
  uint64_t packets = 0, roce = 0, qp_sum = 0, psn_sum = 0;
  int rc;
  while ((rc = pcap_next_ex(p, &h, &d)) == 1) {
    ++packets;
    /* Ethernet (14, plus 4 per 802.1Q/802.1ad tag) + IPv4 (IHL) + UDP (8) + BTH: destination QP at
     * BTH bytes 5..7, PSN at 9..11. */
    size_t eth = 14;
    while (h->caplen >= eth && ((d[eth - 2] == 0x81 && d[eth - 1] == 0x00) || (d[eth - 2] == 0x88 && d[eth - 1] == 0xa8)))
      eth += 4;
    if (h->caplen < eth + 20 + 8 + 12 || d[eth - 2] != 0x08 || d[eth - 1] != 0x00) continue;
    unsigned ihl = (d[eth] & 0x0f) * 4u;
    const u_char* udp = d + eth + ihl;
    if (d[eth + 9] != 17 || (size_t)(udp - d) + 8 + 12 > h->caplen) continue;
    if (((udp[2] << 8) | udp[3]) != 4791) continue;
    ++roce;
    qp_sum += ((uint64_t)udp[8 + 5] << 16) | ((uint64_t)udp[8 + 6] << 8) | udp[8 + 7];
    psn_sum += ((uint64_t)udp[8 + 9] << 16) | ((uint64_t)udp[8 + 10] << 8) | udp[8 + 11];
  }
  pcap_close(p);
  printf("packets %llu roce %llu qp_sum %llu psn_sum %llu\n", (unsigned long long)packets,
         (unsigned long long)roce, (unsigned long long)qp_sum, (unsigned long long)psn_sum);
  return rc == PCAP_ERROR ? 1 : 0;
}
