#include "host/protocol.h"

#include "host/protocols/protocols.h"

namespace ssdtwin {

const std::vector<HostProtocolInfo>& host_protocols() {
  static const std::vector<HostProtocolInfo> kProtocols = {
      {"nvme", "NVMe submission/completion queues over PCIe (full duplex)", &make_nvme_protocol},
      {"sata", "AHCI/NCQ over a half-duplex SATA link, each command framed in FISes",
       &make_sata_protocol},
  };
  return kProtocols;
}

std::vector<std::string> host_protocol_names() { return policy_names(host_protocols()); }

std::unique_ptr<HostProtocol> make_host_protocol(const std::string& name) {
  return make_policy(host_protocols(), name, "host protocol");
}

}  // namespace ssdtwin
