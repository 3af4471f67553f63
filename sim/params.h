// Config keys declared once: each part of a drive, workload or sweep file
// is a ParamSection listing its keys with their kind, default, range and a
// sentence on what they mean. A model reads its part through a Params,
// which takes the default and the range from the declaration, so the
// validation (sim/config.h), `ssdtwin params` and the generated
// docs/CONFIG.md all say the same thing. Reading a key nobody declared is
// a programming error (std::logic_error), which every test that loads a
// config would hit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config.h"

namespace ssdtwin {

enum class ParamKind : std::uint8_t {
  kBytes,      // 16KiB, 250GB
  kTime,       // 50us
  kInt,        // an integer in [imin, imax]
  kReal,       // a number in [dmin, dmax]
  kBool,       // true / false
  kText,       // any string (a file name, a label)
  kChoice,     // one of a fixed or table-given set of names
  kAmount,     // a size or a share: 64GiB or 50%
  kRate,       // 800MT/s
  kTimeList,   // a time, or a list of times
  kIntList,    // an integer, or a list of them
  kBytesList,  // a size, or a list of sizes
  kValues,     // a list of values handed on unread
  kMap,        // a sub-map, declared as its own section
  kMaps,       // a list of maps, each declared as its own section
};

struct Param {
  const char* key = "";
  ParamKind kind = ParamKind::kText;
  // The default as written in a config ("60ns", "4KiB", "lru"); nullptr:
  // required. A default the model computes from other keys is its rule in
  // parentheses, "(2 x trigger_free_blocks)"; the reader then supplies it.
  const char* def = nullptr;
  const char* doc = "";
  std::int64_t imin = INT64_MIN, imax = INT64_MAX;        // kInt, kIntList
  double dmin = 0, dmax = 0;                              // kReal (both 0: any)
  const char* unit = "";                                  // what a plain number counts
  const char* fixed_choices = nullptr;                    // kChoice: "a|b|c"
  std::vector<std::string> (*table_choices)() = nullptr;  // kChoice: a policy table's names

  bool required() const { return def == nullptr; }
  bool computed_default() const { return def != nullptr && def[0] == '('; }
  std::vector<std::string> choices() const;
};

// The declarations, one factory per kind.
namespace param {
Param bytes(const char* key, const char* def, const char* doc);
Param time(const char* key, const char* def, const char* doc);
Param integer(const char* key, const char* def, std::int64_t min, std::int64_t max,
              const char* unit, const char* doc);
Param real(const char* key, const char* def, double min, double max, const char* unit,
           const char* doc);
Param flag(const char* key, const char* def, const char* doc);
Param text(const char* key, const char* def, const char* doc);
Param choice(const char* key, const char* def, const char* choices, const char* doc);
Param choice(const char* key, const char* def, std::vector<std::string> (*choices)(),
             const char* doc);
Param amount(const char* key, const char* def, const char* doc);
Param rate(const char* key, const char* def, const char* doc);
Param time_list(const char* key, const char* def, const char* doc);
Param int_list(const char* key, const char* def, std::int64_t min, std::int64_t max,
               const char* unit, const char* doc);
Param bytes_list(const char* key, const char* def, const char* doc);
Param values(const char* key, const char* doc);
Param map(const char* key, const char* doc);
Param maps(const char* key, const char* doc);
}  // namespace param

// One map of a config file: its path ("drive.ftl.map_cache"; a list's
// elements as "workload.phases[]"), a title, and its keys. Several sections
// may share a path when different models read parts of one map.
struct ParamSection {
  std::string path;
  std::string title;
  std::vector<Param> params;
  const Param* find(std::string_view key) const;
};

// `node` read through its section's declarations.
class Params {
 public:
  Params(const ConfigNode& node, const ParamSection& section);

  std::uint64_t bytes(const char* key) const;
  Tick time(const char* key) const;
  std::int64_t integer(const char* key) const;
  double real(const char* key) const;
  bool flag(const char* key) const;
  std::string text(const char* key) const;
  std::string choice(const char* key) const;
  Amount amount(const char* key) const;
  double rate(const char* key) const;
  std::vector<Tick> time_list(const char* key) const;
  std::vector<std::int64_t> int_list(const char* key) const;
  std::vector<std::uint64_t> bytes_list(const char* key) const;
  std::vector<std::string> values(const char* key) const;

  // Keys whose declared default is computed: the reader gives its value.
  std::uint64_t bytes(const char* key, std::uint64_t computed) const;
  Tick time(const char* key, Tick computed) const;
  std::int64_t integer(const char* key, std::int64_t computed) const;
  double real(const char* key, double computed) const;
  bool flag(const char* key, bool computed) const;
  std::string text(const char* key, const std::string& computed) const;
  std::string choice(const char* key, const std::string& computed) const;
  Amount amount(const char* key, const Amount& computed) const;

  // Keys whose range depends on other keys or on the geometry: the
  // declared range bounds what any drive allows, [lo, hi] what this one
  // does (the error names the narrower range).
  std::int64_t integer_within(const char* key, std::int64_t lo, std::int64_t hi) const;
  std::int64_t integer_within(const char* key, std::int64_t computed, std::int64_t lo,
                              std::int64_t hi) const;
  double real_within(const char* key, double lo, double hi) const;
  double real_within(const char* key, double computed, double lo, double hi) const;
  // A list whose default is computed (e.g. every handle, or none), absent
  // -> `computed`: read only when given, so the resolved config records no
  // default for it.
  std::vector<std::int64_t> int_list(const char* key,
                                     const std::vector<std::int64_t>& computed) const;
  std::vector<Tick> time_list(const char* key, const std::vector<Tick>& computed) const;
  std::vector<std::uint64_t> bytes_list(const char* key,
                                        const std::vector<std::uint64_t>& computed) const;

  // A sub-map or a list of maps, read through its own section.
  Params child(const char* key, const ParamSection& section) const;
  std::vector<Params> children(const char* key, const ParamSection& section) const;
  // The same, handed to another model that reads it through its section
  // (e.g. `MapCacheConfig::from_config(p.map("map_cache"), ...)`).
  ConfigNode map(const char* key) const;
  std::vector<ConfigNode> maps(const char* key) const;

  bool has(const char* key) const { return node_.has(key); }
  const ConfigNode& node() const { return node_; }
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    node_.fail(key, what);
  }

 private:
  const Param& declared(const char* key, ParamKind kind, bool computed) const;
  ConfigNode node_;
  const ParamSection* section_;
};

// The listing of `ssdtwin params` and docs/CONFIG.md, from the sections in
// the order given. `prefix` keeps the keys whose full path starts with it.
std::string params_listing(const std::vector<const ParamSection*>& sections,
                           const std::string& prefix);
std::string params_markdown(const std::vector<const ParamSection*>& sections,
                            const std::string& intro);
// A declaration problem (default that does not parse as its kind, a
// choice default outside its choices, a key declared twice in a path),
// or "" when every declaration is sound.
std::string check_declarations(const std::vector<const ParamSection*>& sections);

}  // namespace ssdtwin
