// A link with a TLP source and a logging sink on each direction, for the link's SystemC tests
// (test_pcie_link.cpp, test_link_faults.cpp).
#ifndef TPU_TESTS_SC_MODELS_LINK_BENCH_H_
#define TPU_TESTS_SC_MODELS_LINK_BENCH_H_

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "sc_models/pcie/tlp.h"
#include "sc_models/pcie_link.h"
#include "sc_models/tlp_payload.h"
#include "tests/sc_models/sc_testing.h"

namespace tpu::sc::testing {

// Sends TLPs into a link direction.
class TlpSource : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<TlpSource> socket;
  explicit TlpSource(sc_core::sc_module_name name) : sc_core::sc_module(name), socket("socket") {}

  // b_transport only: the caller keeps the annotated delay.
  tlm::tlm_response_status Send(const Tlp& tlp, sc_core::sc_time* delay) {
    std::vector<uint8_t> image = EncodeTlp(tlp);
    tlm::tlm_generic_payload trans;
    SetTlpPayload(&trans, image.data(), image.size());
    socket->b_transport(trans, *delay);
    return trans.get_response_status();
  }
  void SendAndWait(const Tlp& tlp) { SendTlp(socket.operator->(), tlp, name()); }
};

// Receives TLPs, logging each with its time; takes `busy` to consume each.
class TlpSink : public sc_core::sc_module {
 public:
  struct Entry {
    double time_ns;
    Tlp tlp;
  };
  tlm_utils::simple_target_socket<TlpSink> socket;
  std::vector<Entry> log;
  sc_core::sc_time busy = sc_core::SC_ZERO_TIME;
  int error_tag = -1;  // answer TLPs with this tag with an error
  unsigned dbg_calls = 0;

  explicit TlpSink(sc_core::sc_module_name name) : sc_core::sc_module(name), socket("socket") {
    socket.register_b_transport(this, &TlpSink::b_transport);
    socket.register_transport_dbg(this, &TlpSink::transport_dbg);
  }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
    Tlp t = DecodeTlp(trans.get_data_ptr(), trans.get_data_length());
    log.push_back({testing::NowNs() + delay.to_seconds() * 1e9, t});
    if (t.tag == error_tag) {
      trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
      return;
    }
    delay += busy;
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans) {
    ++dbg_calls;
    return trans.get_data_length();
  }
};

// A link with a source and a sink on each direction.
class LinkBench : public sc_core::sc_module {
 public:
  LinkBench(sc_core::sc_module_name name, const PcieLinkConfig& config)
      : sc_core::sc_module(name),
        link("link", config),
        down_src("down_src"),
        down_sink("down_sink"),
        up_src("up_src"),
        up_sink("up_sink") {
    down_src.socket.bind(link.downstream.in);
    link.downstream.out.bind(down_sink.socket);
    up_src.socket.bind(link.upstream.in);
    link.upstream.out.bind(up_sink.socket);
  }
  PcieLink link;
  TlpSource down_src;
  TlpSink down_sink;
  TlpSource up_src;
  TlpSink up_sink;
};

}  // namespace tpu::sc::testing

#endif  // TPU_TESTS_SC_MODELS_LINK_BENCH_H_
