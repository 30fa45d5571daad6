#include "sc_models/tlp_payload.h"

#include <stdexcept>
#include <vector>

namespace tpu::sc {

void SetTlpPayload(tlm::tlm_generic_payload* trans, uint8_t* image, size_t size) {
  trans->set_command(tlm::TLM_WRITE_COMMAND);
  trans->set_address(0);
  trans->set_data_ptr(image);
  trans->set_data_length(static_cast<unsigned int>(size));
  trans->set_streaming_width(static_cast<unsigned int>(size));
  trans->set_byte_enable_ptr(nullptr);
  trans->set_byte_enable_length(0);
  trans->set_dmi_allowed(false);
  trans->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}

void SendTlp(tlm::tlm_fw_transport_if<>* link, const Tlp& tlp, const std::string& who) {
  std::vector<uint8_t> image = EncodeTlp(tlp);
  tlm::tlm_generic_payload trans;
  SetTlpPayload(&trans, image.data(), image.size());
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  link->b_transport(trans, delay);
  if (trans.is_response_error()) {
    throw std::runtime_error(who + ": the link refused " + tlp.Describe() + ": " +
                             trans.get_response_string());
  }
  sc_core::wait(delay);
}

}  // namespace tpu::sc
