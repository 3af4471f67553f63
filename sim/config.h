// Validated access to YAML configuration (drive and workload files).
//
// Every value is read through a ConfigNode getter that checks its type and
// range, records the key as used, and records the value actually used
// (including defaults) in the resolved tree. After a component tree has been
// built, ConfigDoc::check_unused() turns every key nobody read into an error,
// so a misspelled key never silently falls back to a default.
//
// Errors are ConfigError exceptions whose message is one line:
//   configs/drives/x.yaml:12:5: drive.nand.page_size: expected a size such as 16KiB, got 'abc'
// For values set with --set the location is "--set drive.nand.page_size".
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/time.h"

namespace YAML {
class Node;
}

namespace ssdtwin {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A quantity given either in absolute bytes ("64GiB") or as a share of some
// base the reader knows ("100%", e.g. of the drive's user capacity).
struct Amount {
  bool is_percent = false;
  double percent = 0.0;     // 0..100 (or more) when is_percent
  std::uint64_t bytes = 0;  // when !is_percent
  std::uint64_t resolve(std::uint64_t base) const {
    return is_percent ? static_cast<std::uint64_t>(static_cast<double>(base) * percent / 100.0)
                      : bytes;
  }
};

class ConfigDoc;

class ConfigNode {
 public:
  // Required scalars: a missing key is an error naming the key.
  std::uint64_t get_bytes(const std::string& key) const;
  Tick get_time(const std::string& key) const;
  std::int64_t get_int(const std::string& key, std::int64_t min, std::int64_t max) const;
  double get_double(const std::string& key, double min, double max) const;
  bool get_bool(const std::string& key) const;
  std::string get_string(const std::string& key) const;
  std::string get_enum(const std::string& key, const std::vector<std::string>& choices) const;
  Amount get_amount(const std::string& key) const;
  double get_rate_mts(const std::string& key) const;  // "800MT/s" or a number

  // With a default: a missing key takes the default (recorded as resolved).
  std::uint64_t get_bytes(const std::string& key, std::uint64_t def) const;
  Tick get_time(const std::string& key, Tick def) const;
  std::int64_t get_int(const std::string& key, std::int64_t def, std::int64_t min,
                       std::int64_t max) const;
  double get_double(const std::string& key, double def, double min, double max) const;
  bool get_bool(const std::string& key, bool def) const;
  std::string get_string(const std::string& key, const std::string& def) const;
  std::string get_enum(const std::string& key, const std::vector<std::string>& choices,
                       const std::string& def) const;
  Amount get_amount(const std::string& key, const Amount& def) const;

  // A time given as a scalar or as a list (one value per NAND page type).
  std::vector<Tick> get_time_list(const std::string& key) const;
  // An integer or a list of integers, each in [min, max] (e.g. a queue-depth
  // sweep); missing -> {def}. An element's error names it: "key.3".
  std::vector<std::int64_t> get_int_list(const std::string& key, std::int64_t def, std::int64_t min,
                                         std::int64_t max) const;
  // A size or a list of sizes (e.g. a transfer-size sweep); missing -> {def}.
  std::vector<std::uint64_t> get_bytes_list(const std::string& key, std::uint64_t def) const;

  // A non-empty list of values of any kind, each as YAML text (scalars as
  // written, lists and maps in flow style): values handed on unread, e.g. a
  // sweep axis's values as --set overrides. Missing -> error.
  std::vector<std::string> get_value_texts(const std::string& key) const;

  // Sub-map. Missing -> an empty map whose getters return their defaults.
  // Present but not a map -> error.
  ConfigNode child(const std::string& key) const;
  // Sequence of maps (e.g. workload phases). Missing -> error.
  std::vector<ConfigNode> children(const std::string& key) const;

  bool has(const std::string& key) const;
  const std::string& path() const { return path_; }  // "drive.nand"
  const std::string& file() const;                   // the file the node was read from

  // Throws ConfigError located at `key` (or at this node if the key is
  // absent), e.g. for cross-field checks done by the model.
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;

 private:
  friend class ConfigDoc;
  ConfigNode(ConfigDoc* doc, std::shared_ptr<YAML::Node> node, std::string path);
  ConfigDoc* doc_ = nullptr;
  std::shared_ptr<YAML::Node> node_;
  std::string path_;
};

class ConfigDoc {
 public:
  // Loads `file`, whose single top-level key must be `root_key` ("drive" or
  // "workload"), then applies overrides given as "root_key.a.b=value";
  // overrides for another root key are ignored here (they belong to the
  // other document). An override naming a key that does not exist is
  // inserted, so a misspelling is reported by check_unused().
  static std::unique_ptr<ConfigDoc> load(const std::string& file, const std::string& root_key,
                                         const std::vector<std::string>& overrides);
  // Same, from text (tests); `file` is used in messages only.
  static std::unique_ptr<ConfigDoc> parse(const std::string& text, const std::string& file,
                                          const std::string& root_key,
                                          const std::vector<std::string>& overrides);
  ~ConfigDoc();

  ConfigNode root();
  // Throws ConfigError for the first key (in document order) that no getter read.
  void check_unused() const;
  // The resolved configuration (file values, overrides and defaults used), as JSON text.
  std::string resolved_json() const;
  const std::string& file() const;

  struct Impl;

 private:
  ConfigDoc();
  std::unique_ptr<Impl> impl_;
  friend class ConfigNode;
};

// `text` made safe to quote in a one-line message: newline, tab and CR as
// \n, \t, \r, other control bytes (NUL included, which would cut a C
// string) as \xNN; everything else as it is.
std::string printable(std::string_view text);

// Unit parsing, exposed for reuse (CLI, traces) and testing. Return nullopt
// when the text is not of the expected form.
std::optional<std::uint64_t> parse_bytes(const std::string& text);  // 4096, 16KiB, 250GB, 1.5MiB
std::optional<Tick> parse_time(const std::string& text);            // 50us, 2ms, 1.5s, 700ns, 0
std::optional<double> parse_mts(const std::string& text);           // 800MT/s, 800
std::optional<Amount> parse_amount(const std::string& text);        // 64GiB, 50%
std::optional<std::int64_t> parse_int(const std::string& text);     // -3, 42 (no 1.5, 0x10)
std::optional<double> parse_double(const std::string& text);        // 0.5, 1e9 (no inf, nan)

}  // namespace ssdtwin
