// A table of named implementations of one policy kind (GC victim choice,
// SLC cache policy, NAND error model, ...): each row a name, a one-line
// description and a factory. Configs name a row; `ssdtwin policies` lists
// them. Factories of kinds with parameters take them (`Args`), e.g. the
// config node holding the implementation's own keys.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ssdtwin {

template <class Policy, class... Args>
struct PolicyInfo {
  const char* name;
  const char* description;
  std::unique_ptr<Policy> (*make)(Args...);
};

template <class Policy, class... Args>
std::vector<std::string> policy_names(const std::vector<PolicyInfo<Policy, Args...>>& table) {
  std::vector<std::string> names;
  for (const auto& p : table) names.emplace_back(p.name);
  return names;
}

// `name` must be in the table (configs check it with policy_names first).
template <class Policy, class... Args, class... Given>
std::unique_ptr<Policy> make_policy(const std::vector<PolicyInfo<Policy, Args...>>& table,
                                    const std::string& name, const char* kind, Given&&... args) {
  for (const auto& p : table)
    if (name == p.name) return p.make(std::forward<Given>(args)...);
  throw std::invalid_argument(std::string("unknown ") + kind + " " + name);
}

}  // namespace ssdtwin
