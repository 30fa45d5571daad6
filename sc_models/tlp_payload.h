// TLPs as TLM-2.0 generic payloads (sc_models/pcie_link.h): the payload set-up every sender
// and the link share, and the blocking send of a TLP from an SC_THREAD.
#ifndef TPU_SC_MODELS_TLP_PAYLOAD_H_
#define TPU_SC_MODELS_TLP_PAYLOAD_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <systemc>
#include <tlm>

#include "sc_models/pcie/tlp.h"

namespace tpu::sc {

// WRITE command, address 0, data = the image, length = streaming width = size, no byte
// enables, response INCOMPLETE.
void SetTlpPayload(tlm::tlm_generic_payload* trans, uint8_t* image, size_t size);

// Encodes tlp, calls b_transport on `link` (the link's `in` socket, through an initiator
// socket's operator->) and waits for the annotated delay: returns once the TLP has been
// serialized. Throws std::runtime_error naming `who` and the TLP if the link refuses it.
void SendTlp(tlm::tlm_fw_transport_if<>* link, const Tlp& tlp, const std::string& who);

}  // namespace tpu::sc

#endif  // TPU_SC_MODELS_TLP_PAYLOAD_H_
