// Factories of the built-in host protocols (one file each).
#pragma once

#include <memory>
#include <vector>

#include "host/protocol.h"

namespace ssdtwin {

struct ParamSection;

std::unique_ptr<HostProtocol> make_nvme_protocol();
std::unique_ptr<HostProtocol> make_sata_protocol();

// Each protocol's keys of `drive.host`, declared (sim/params.h).
std::vector<const ParamSection*> nvme_param_sections();
std::vector<const ParamSection*> sata_param_sections();

}  // namespace ssdtwin
