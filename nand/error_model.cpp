#include "nand/error_model.h"

#include <cstdint>

#include "nand/impl/error_models.h"
#include "sim/config.h"

namespace ssdtwin {

const std::vector<ErrorModelInfo>& error_models() {
  static const std::vector<ErrorModelInfo> kModels = {
      {"power_law",
       "RBER = epsilon + alpha*N^k + beta*N^m*t^n + gamma*N^p*R^q: P/E cycles N, retention "
       "days t, reads since erase R (one power law per term)",
       &make_power_law_errors},
  };
  return kModels;
}

std::vector<std::string> error_model_names() {
  std::vector<std::string> names{"none"};
  for (const auto& n : policy_names(error_models())) names.push_back(n);
  return names;
}

std::unique_ptr<ErrorModel> make_error_model(const ConfigNode& errors) {
  const std::string name = errors.get_enum("model", error_model_names(), "none");
  // Each model's coefficients sit in a map named after it, checked whether
  // or not the model is selected: a drive config can carry its part's
  // characterisation while the reference runs use `none`, and
  // `--set drive.nand.errors.model=...` turns it on.
  std::unique_ptr<ErrorModel> model;
  for (const auto& m : error_models()) {
    if (!errors.has(m.name) && name != m.name) continue;
    auto built = m.make(errors.child(m.name));
    if (name == m.name) model = std::move(built);
  }
  if (!model) return nullptr;
  model->seed = static_cast<std::uint64_t>(errors.get_int("seed", 1, 0, INT64_MAX));
  const ConfigNode age = errors.child("age");
  model->age_pe_cycles = static_cast<double>(age.get_int("pe_cycles", 0, 0, 1000000));
  model->age_retention_days = age.get_double("retention_days", 0, 0, 1e5);
  return model;
}

}  // namespace ssdtwin
