#include "nand/error_model.h"

#include <cstdint>

#include "nand/impl/error_models.h"
#include "sim/config.h"
#include "sim/params.h"

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

namespace {

const ParamSection kNandSection{
    "drive.nand",
    "",
    {
        param::map("errors",
                   "raw bit errors of the flash: the model of the RBER reads see "
                   "(absent: none)"),
    }};

// The models' maps come from the table, so a model added there is declared.
const ParamSection& errors_section() {
  static const ParamSection kSection = [] {
    ParamSection s{
        "drive.nand.errors",
        "Raw bit errors: the model of the raw bit error rate (RBER) a read sees from the wear "
        "and age of its block. Each model's coefficients sit in a map named after it, checked "
        "whether or not the model is selected.",
        {
            param::choice("model", "none", &error_model_names,
                          "the RBER model (none: reads never see errors)"),
            param::integer("seed", "1", 0, INT64_MAX, "",
                           "seed of the error draws, a random stream of their own: turning "
                           "errors on moves no other random choice"),
            param::map("age", "wear every block starts with (e.g. end of life)"),
        }};
    for (const ErrorModelInfo& m : error_models())
      s.params.push_back(param::map(m.name, m.description));
    return s;
  }();
  return kSection;
}

const ParamSection kAgeSection{
    "drive.nand.errors.age",
    "Wear every block starts with: a run may start at end of life without simulating years of "
    "writes.",
    {
        param::integer("pe_cycles", "0", 0, 1000000, "P/E cycles",
                       "program/erase cycles added to every block's own"),
        param::real("retention_days", "0", 0, 1e5, "days",
                    "retention time added to every block's own"),
    }};

}  // namespace

std::vector<const ParamSection*> error_model_params() {
  return {&kNandSection, &errors_section(), &kAgeSection, &power_law_error_params()};
}

std::unique_ptr<ErrorModel> make_error_model(const ConfigNode& nand) {
  const Params errors = Params(nand, kNandSection).child("errors", errors_section());
  const std::string name = errors.choice("model");
  // Each model's coefficients sit in a map named after it, checked whether
  // or not the model is selected: a drive config can carry its part's
  // characterisation while the reference runs use `none`, and
  // `--set drive.nand.errors.model=...` turns it on.
  std::unique_ptr<ErrorModel> model;
  for (const auto& m : error_models()) {
    if (!errors.has(m.name) && name != m.name) continue;
    auto built = m.make(errors.map(m.name));
    if (name == m.name) model = std::move(built);
  }
  if (!model) return nullptr;
  model->seed = static_cast<std::uint64_t>(errors.integer("seed"));
  const Params age = errors.child("age", kAgeSection);
  model->age_pe_cycles = static_cast<double>(age.integer("pe_cycles"));
  model->age_retention_days = age.real("retention_days");
  return model;
}

}  // namespace ssdtwin
