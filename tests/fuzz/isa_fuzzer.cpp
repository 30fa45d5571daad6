// libFuzzer entry point for the instruction decoder and the assembler (`make fuzz`): the first
// 16 bytes are an instruction's words (decoded, checked, disassembled and assembled back; one
// that decodes re-encodes to the same words), all the bytes are also assembly text (assembled,
// or rejected with an AsmError).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "isa/isa.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tpu::isa;
  AssembleOptions unchecked;
  unchecked.validate = false;
  if (size >= sizeof(Words)) {
    Words words;
    std::memcpy(words.data(), data, sizeof(Words));
    const Decoded d = Decode(words);
    Check(words, DeviceLimits{});
    if (d.error == Error::kOk && Encode(d.instr) != words) std::abort();
    if (Assemble(Disassemble(words), unchecked) != std::vector<Words>{words}) std::abort();
  }
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const AssembleOptions& options : {unchecked, AssembleOptions{}}) {
    try {
      const std::vector<Words> program = Assemble(text, options);
      if (Assemble(DisassembleProgram(program), unchecked) != program) std::abort();
    } catch (const AsmError& e) {
      if (e.diagnostics().empty()) std::abort();
    }
  }
  return 0;
}
