// A table of named implementations of one policy kind (GC victim choice,
// SLC cache policy, ...): each row a name, a one-line description and a
// factory. Configs name a row; `ssdtwin policies` lists them.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace ssdtwin {

template <class Policy>
struct PolicyInfo {
  const char* name;
  const char* description;
  std::unique_ptr<Policy> (*make)();
};

template <class Policy>
std::vector<std::string> policy_names(const std::vector<PolicyInfo<Policy>>& table) {
  std::vector<std::string> names;
  for (const auto& p : table) names.emplace_back(p.name);
  return names;
}

// `name` must be in the table (configs check it with policy_names first).
template <class Policy>
std::unique_ptr<Policy> make_policy(const std::vector<PolicyInfo<Policy>>& table,
                                    const std::string& name, const char* kind) {
  for (const auto& p : table)
    if (name == p.name) return p.make();
  throw std::invalid_argument(std::string("unknown ") + kind + " " + name);
}

}  // namespace ssdtwin
