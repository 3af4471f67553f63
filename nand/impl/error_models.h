// Factories of the built-in NAND error models (one file each).
#pragma once

#include <memory>

#include "nand/error_model.h"

namespace ssdtwin {

std::unique_ptr<ErrorModel> make_power_law_errors(const ConfigNode& node);
const ParamSection& power_law_error_params();

}  // namespace ssdtwin
