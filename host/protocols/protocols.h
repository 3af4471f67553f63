// Factories of the built-in host protocols (one file each).
#pragma once

#include <memory>

#include "host/protocol.h"

namespace ssdtwin {

std::unique_ptr<HostProtocol> make_nvme_protocol();
std::unique_ptr<HostProtocol> make_sata_protocol();

}  // namespace ssdtwin
