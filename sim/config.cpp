#include "sim/config.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <sstream>
#include <string_view>
#include <system_error>
#include <utility>

#include "sim/utf8.h"

namespace ssdtwin {

using Json = nlohmann::ordered_json;

// yaml-cpp pitfall that shapes this file: assigning to a YAML::Node that is bound to a tree node
// rebinds the *tree* (Node::operator= aliases the data). Handles are therefore only ever
// copy-constructed or rebound with reset(), and the tree is written only in apply_override().
struct ConfigDoc::Impl {
  struct NodeInfo {
    std::vector<std::string> components;  // path split into keys/indices, for resolved_json()
    YAML::Mark mark;                      // where "required key is missing" points
  };

  std::string file;
  std::string root_key;
  YAML::Node doc;   // the whole document: {root_key: {...}}
  YAML::Node root;  // doc[root_key], always a map
  // Dotted paths of every key a getter asked for, present or not.
  std::set<std::string> read;
  // Path of a node that --set created or replaced -> the --set path responsible for it.
  std::map<std::string, std::string> override_origin;
  // Every map handed out as a ConfigNode, by path; a missing child() has no YAML node in the
  // tree, so its components and location must be remembered here.
  std::map<std::string, NodeInfo> nodes;
  // Defaults taken, in the order they were first taken (keeps resolved_json() deterministic).
  std::vector<std::pair<std::vector<std::string>, Json>> defaults;
  std::map<std::string, std::size_t> default_index;

  std::string at(const YAML::Mark& mark) const {
    if (mark.is_null() || mark.line < 0) return file;
    return file + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
  }

  const std::string* origin_of(const std::string& path) const {
    std::string p = path;
    for (;;) {
      const auto it = override_origin.find(p);
      if (it != override_origin.end()) return &it->second;
      const auto dot = p.rfind('.');
      if (dot == std::string::npos) return nullptr;
      p.resize(dot);
    }
  }

  std::string location(const std::string& path, const YAML::Mark& mark) const {
    if (const std::string* origin = origin_of(path)) return "--set " + *origin;
    return at(mark);
  }

  std::string node_location(const std::string& path) const {
    const auto it = nodes.find(path);
    return location(path, it == nodes.end() ? YAML::Mark::null_mark() : it->second.mark);
  }

  void register_node(const std::string& path, std::vector<std::string> components,
                     const YAML::Mark& mark) {
    nodes[path] = NodeInfo{std::move(components), mark};
  }

  // Every ConfigNode is registered when it is made (root at load, child(), children()).
  const std::vector<std::string>& components_of(const std::string& path) const {
    return nodes.at(path).components;
  }

  void record_default(const std::string& parent, const std::string& key, Json value) {
    const std::string path = parent + "." + key;
    const auto it = default_index.find(path);
    if (it != default_index.end()) {
      defaults[it->second].second = std::move(value);
      return;
    }
    auto components = components_of(parent);
    components.push_back(key);
    default_index[path] = defaults.size();
    defaults.emplace_back(std::move(components), std::move(value));
  }

  // Direct children of `parent` that some getter asked for, sorted.
  std::vector<std::string> known_keys(const std::string& parent) const {
    const std::string prefix = parent + ".";
    std::set<std::string> keys;
    for (auto it = read.lower_bound(prefix); it != read.end(); ++it) {
      if (it->compare(0, prefix.size(), prefix) != 0) break;
      const std::string rest = it->substr(prefix.size());
      keys.insert(rest.substr(0, rest.find('.')));
    }
    return {keys.begin(), keys.end()};
  }
};

namespace {

using Impl = ConfigDoc::Impl;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += sep;
    out += items[i];
  }
  return out;
}

std::string escape(const std::string& text) { return printable(text); }

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return "'" + escape(node.Scalar()) + "'";
    case YAML::NodeType::Sequence:
      return node.size() == 0 ? "an empty list" : "a list";
    case YAML::NodeType::Map:
      return "a map";
    default:
      return "an empty value";
  }
}

std::string format_double(double value) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, value);
  return std::string(buf, res.ptr);
}

std::string format_time(Tick t) {
  if (t == 0) return "0ns";
  if (t % kSec == 0) return std::to_string(t / kSec) + "s";
  if (t % kMs == 0) return std::to_string(t / kMs) + "ms";
  if (t % kUs == 0) return std::to_string(t / kUs) + "us";
  return std::to_string(t) + "ns";
}

Json amount_json(const Amount& a) {
  if (a.is_percent) return format_double(a.percent) + "%";
  return a.bytes;
}

// ---- number grammar shared by the unit parsers ----

// "123" or "123.45": the integer part and the fraction digits without trailing zeros.
struct Decimal {
  std::uint64_t whole = 0;
  std::string frac;
};

// Reads a non-negative decimal at the start of `text`; `rest` receives what follows.
std::optional<Decimal> read_decimal(std::string_view text, std::string_view* rest) {
  std::size_t i = 0;
  while (i < text.size() && is_digit(text[i])) ++i;
  if (i == 0) return std::nullopt;
  Decimal d;
  const auto res = std::from_chars(text.data(), text.data() + i, d.whole);
  if (res.ec != std::errc()) return std::nullopt;
  if (i < text.size() && text[i] == '.') {
    std::size_t j = i + 1;
    while (j < text.size() && is_digit(text[j])) ++j;
    if (j == i + 1) return std::nullopt;
    d.frac = std::string(text.substr(i + 1, j - i - 1));
    while (!d.frac.empty() && d.frac.back() == '0') d.frac.pop_back();
    i = j;
  }
  *rest = text.substr(i);
  return d;
}

// What follows a number: "" (no unit), "KiB" or " KiB". A lone or doubled space is junk.
std::optional<std::string_view> read_unit(std::string_view rest) {
  if (!rest.empty() && rest[0] == ' ') {
    rest.remove_prefix(1);
    if (rest.empty() || rest[0] == ' ') return std::nullopt;
  }
  return rest;
}

// d * mult in integers, without going through double so that 1.5KiB is exactly 1536 and huge
// values overflow cleanly. With `round_nearest` a fractional result is rounded (half up);
// otherwise it is rejected. Rounding is only exact-safe for power-of-ten `mult` (times).
std::optional<std::uint64_t> scale(Decimal d, std::uint64_t mult, bool round_nearest) {
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  if (mult != 0 && d.whole > kMax / mult) return std::nullopt;
  const std::uint64_t whole = d.whole * mult;
  if (d.frac.empty()) return whole;
  constexpr std::size_t kMaxFracDigits = 19;  // 10^19 still fits in 64 bits
  if (d.frac.size() > kMaxFracDigits) {
    if (!round_nearest) return std::nullopt;
    d.frac.resize(kMaxFracDigits);
  }
  std::uint64_t f = 0;
  std::from_chars(d.frac.data(), d.frac.data() + d.frac.size(), f);
  std::uint64_t pow10 = 1;
  for (std::size_t i = 0; i < d.frac.size(); ++i) pow10 *= 10;
  // value of the fraction = f * mult / pow10 = (f / den) * num with num/den in lowest terms,
  // so every intermediate stays below mult.
  const std::uint64_t g = std::gcd(mult, pow10);
  const std::uint64_t num = mult / g;
  const std::uint64_t den = pow10 / g;
  std::uint64_t frac = (f / den) * num;
  const std::uint64_t rem = f % den;
  if (rem != 0) {
    if (!round_nearest) return std::nullopt;
    // den > 1 with a power-of-ten mult means num == 1, so rem * num < den <= 10^19.
    frac += (rem * num + den / 2) / den;
  }
  if (frac > kMax - whole) return std::nullopt;
  return whole + frac;
}

// Finite non-negative double from "123" or "1.5" (no sign, exponent, inf or nan).
std::optional<double> read_plain_double(std::string_view text, std::string_view* rest) {
  std::string_view after;
  if (!read_decimal(text, &after)) return std::nullopt;
  const std::size_t len = text.size() - after.size();
  double value = 0;
  const auto res = std::from_chars(text.data(), text.data() + len, value);
  if (res.ec != std::errc()) return std::nullopt;
  *rest = after;
  return value;
}

}  // namespace

std::optional<Amount> parse_amount(const std::string& text) {
  // A larger share is no share of anything a config sizes (io_size: 200% is two passes),
  // and its bytes, base x percent / 100 as a double, could pass 2^64, where the conversion
  // to an integer is undefined (found by fuzz/: "1844674407370955161%"). Every base is a
  // user capacity or range, under the 15 TiB the geometry allows: at most 1.7e17 bytes here.
  constexpr double kMaxPercent = 1e6;
  std::string_view rest;
  if (const auto pct = read_plain_double(text, &rest)) {
    const auto unit = read_unit(rest);
    if (unit && *unit == "%") {
      if (*pct > kMaxPercent) return std::nullopt;
      Amount a;
      a.is_percent = true;
      a.percent = *pct;
      return a;
    }
  }
  if (const auto bytes = parse_bytes(text)) {
    Amount a;
    a.bytes = *bytes;
    return a;
  }
  return std::nullopt;
}

// Integer in YAML plain form: optional sign and digits only (rejects 1.5, 0x10, 1e3).
std::optional<std::int64_t> parse_int(const std::string& text) {
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  for (const char c : s) {
    if (!is_digit(c)) return std::nullopt;
  }
  // Parse with the sign so that INT64_MIN is reachable.
  const std::string digits = (negative ? "-" : "") + std::string(s);
  std::int64_t value = 0;
  const auto res = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (res.ec != std::errc() || res.ptr != digits.data() + digits.size()) return std::nullopt;
  return value;
}

// Decimal float: [sign] digits [. digits] [e [sign] digits], or .5; no inf/nan/hex.
std::optional<double> parse_double(const std::string& text) {
  std::string_view s = text;
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  std::size_t i = (!s.empty() && s[0] == '-') ? 1 : 0;
  std::size_t digits = 0;
  while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    std::size_t exp_digits = 0;
    while (i < s.size() && is_digit(s[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  double value = 0;
  const auto res = std::from_chars(s.data(), s.data() + s.size(), value);
  if (res.ec != std::errc() || res.ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

namespace {

std::optional<std::size_t> parse_index(const std::string& text) {
  if (text.empty()) return std::nullopt;
  for (const char c : text) {
    if (!is_digit(c)) return std::nullopt;
  }
  std::size_t value = 0;
  const auto res = std::from_chars(text.data(), text.data() + text.size(), value);
  if (res.ec != std::errc()) return std::nullopt;
  return value;
}

// ---- tree helpers ----

// (key, value) handles for `key` in `map`, without creating it (non-const operator[] would).
std::optional<std::pair<YAML::Node, YAML::Node>> find_key(const YAML::Node& map,
                                                          const std::string& key) {
  if (!map.IsMap()) return std::nullopt;
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) {
      return std::make_pair(YAML::Node(it->first), YAML::Node(it->second));
    }
  }
  return std::nullopt;
}

// Rejects what the dotted-path model cannot address: non-scalar keys and duplicate keys
// (yaml-cpp keeps both, and the first would silently win). `origin` is the --set path when
// the subtree came from an override.
void validate_keys(const Impl& impl, const YAML::Node& node, const std::string& path,
                   const std::string* origin) {
  const auto where = [&](const YAML::Mark& mark) {
    return origin ? "--set " + *origin : impl.at(mark);
  };
  if (node.IsMap()) {
    std::map<std::string, YAML::Mark> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (!it->first.IsScalar()) {
        throw ConfigError(where(it->first.Mark()) + ": " + path +
                          ": expected plain keys, got a key that is " + describe(it->first));
      }
      const std::string key = it->first.Scalar();
      const std::string key_path = path + "." + key;
      const auto [prev, inserted] = seen.emplace(key, it->first.Mark());
      if (!inserted) {
        std::string first;
        if (!prev->second.is_null() && !origin) {
          first = " (first given at line " + std::to_string(prev->second.line + 1) + ")";
        }
        throw ConfigError(where(it->first.Mark()) + ": " + key_path + ": duplicate key" + first);
      }
      validate_keys(impl, it->second, key_path, origin);
    }
  } else if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      validate_keys(impl, node[i], path + "." + std::to_string(i), origin);
    }
  }
}

// One key looked up in one map, with everything needed to report errors about it.
struct Slot {
  Impl& impl;
  std::string path;
  bool exists;
  YAML::Mark key_mark;
  YAML::Node value;  // Null when !exists

  // A null value ("key:" or "key: ~") is not a value: required keys report
  // it as missing; keys with a default reject it (given()), so that an
  // empty --set or a stray "key:" never silently means the default. Only a
  // map (child()) may be empty.
  bool present() const { return exists && !value.IsNull(); }
  bool given() const {
    if (exists && value.IsNull())
      throw ConfigError(location() + ": " + path +
                        ": expected a value, got nothing (empty or null); remove the key to take "
                        "its default");
    return exists;
  }

  std::string location() const {
    if (const std::string* origin = impl.origin_of(path)) return "--set " + *origin;
    const YAML::Mark value_mark = value.Mark();
    if (value.IsScalar() && !value_mark.is_null()) return impl.at(value_mark);
    if (!key_mark.is_null()) return impl.at(key_mark);
    return impl.at(value_mark);
  }

  [[noreturn]] void expected(const std::string& what) const {
    throw ConfigError(location() + ": " + path + ": expected " + what + ", got " + describe(value));
  }

  std::string scalar(const std::string& what) const {
    if (!value.IsScalar()) expected(what);
    return value.Scalar();
  }
};

Slot open_slot(Impl& impl, const YAML::Node& map, const std::string& parent,
               const std::string& key) {
  const std::string path = parent + "." + key;
  impl.read.insert(path);
  if (auto kv = find_key(map, key)) {
    return Slot{impl, path, true, kv->first.Mark(), YAML::Node(kv->second)};
  }
  return Slot{impl, path, false, YAML::Mark::null_mark(), YAML::Node()};
}

// A list element seen as a slot, so that its errors name "a.b.3" at the element itself.
Slot element_slot(Impl& impl, const std::string& parent, std::size_t index,
                  const YAML::Node& element) {
  return Slot{impl, parent + "." + std::to_string(index), true, YAML::Mark::null_mark(),
              YAML::Node(element)};
}

// Every key under `node` counted as read: a value handed on whole (see
// get_value_texts) is checked by whoever reads it.
void mark_subtree_read(Impl& impl, const YAML::Node& node, const std::string& path) {
  if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string key_path = path + "." + it->first.Scalar();
      impl.read.insert(key_path);
      mark_subtree_read(impl, it->second, key_path);
    }
  } else if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i)
      mark_subtree_read(impl, node[i], path + "." + std::to_string(i));
  }
}

[[noreturn]] void throw_missing(const Slot& slot, const std::string& parent) {
  if (slot.exists) {
    throw ConfigError(slot.location() + ": " + slot.path + ": required key has no value");
  }
  throw ConfigError(slot.impl.node_location(parent) + ": " + slot.path +
                    ": required key is missing");
}

// ---- per-type readers: a present slot -> value, or a located error ----

const char kBytesExpected[] = "a size such as 16KiB";
const char kTimeExpected[] = "a time such as 50us (units ns, us, ms, s)";
const char kAmountExpected[] = "a size such as 16KiB or a percentage such as 100%";

std::uint64_t read_bytes(const Slot& s) {
  const auto v = parse_bytes(s.scalar(kBytesExpected));
  if (!v) s.expected(kBytesExpected);
  return *v;
}

Tick read_time(const Slot& s) {
  const auto v = parse_time(s.scalar(kTimeExpected));
  if (!v) s.expected(kTimeExpected);
  return *v;
}

std::int64_t read_int(const Slot& s, std::int64_t min, std::int64_t max) {
  const std::string what =
      "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  const auto v = parse_int(s.scalar(what));
  if (!v || *v < min || *v > max) s.expected(what);
  return *v;
}

double read_double(const Slot& s, double min, double max) {
  const std::string what = "a number in [" + format_double(min) + ", " + format_double(max) + "]";
  const auto v = parse_double(s.scalar(what));
  if (!v || !(*v >= min && *v <= max)) s.expected(what);
  return *v;
}

bool read_bool(const Slot& s) {
  const char what[] = "true or false";
  s.scalar(what);
  bool v = false;
  if (!YAML::convert<bool>::decode(s.value, v)) s.expected(what);
  return v;
}

std::string read_enum(const Slot& s, const std::vector<std::string>& choices) {
  const std::string what = "one of " + join(choices, ", ");
  const std::string v = s.scalar(what);
  for (const auto& c : choices) {
    if (v == c) return v;
  }
  s.expected(what);
}

Amount read_amount(const Slot& s) {
  const auto v = parse_amount(s.scalar(kAmountExpected));
  if (!v) s.expected(kAmountExpected);
  return *v;
}

// ---- resolved tree ----

// Plain scalars that look like JSON numbers/bools become numbers/bools; anything quoted or
// unit-bearing ("16KiB") stays the string that was written.
Json scalar_json(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() != "?") return text;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  // JSON number grammar: no leading zeros, no '+', no bare '.5'.
  std::size_t i = 0;
  if (i < text.size() && text[i] == '-') ++i;
  const std::size_t int_start = i;
  while (i < text.size() && is_digit(text[i])) ++i;
  const std::size_t int_len = i - int_start;
  if (int_len == 0 || (int_len > 1 && text[int_start] == '0')) return text;
  bool is_float = false;
  if (i < text.size() && text[i] == '.') {
    const std::size_t frac_start = ++i;
    while (i < text.size() && is_digit(text[i])) ++i;
    if (i == frac_start) return text;
    is_float = true;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    const std::size_t exp_start = i;
    while (i < text.size() && is_digit(text[i])) ++i;
    if (i == exp_start) return text;
    is_float = true;
  }
  if (i != text.size()) return text;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (!is_float) {
    std::int64_t s = 0;
    if (std::from_chars(first, last, s).ec == std::errc()) return s;
    std::uint64_t u = 0;
    if (std::from_chars(first, last, u).ec == std::errc()) return u;
    return text;
  }
  double d = 0;
  if (std::from_chars(first, last, d).ec == std::errc()) return d;
  return text;
}

Json to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      Json j = Json::object();
      for (auto it = node.begin(); it != node.end(); ++it) {
        j[it->first.Scalar()] = to_json(it->second);
      }
      return j;
    }
    case YAML::NodeType::Sequence: {
      Json j = Json::array();
      for (auto it = node.begin(); it != node.end(); ++it) j.push_back(to_json(*it));
      return j;
    }
    case YAML::NodeType::Scalar:
      return scalar_json(node);
    default:
      return nullptr;
  }
}

void insert_default(Json* tree, const std::vector<std::string>& components, const Json& value) {
  Json* cur = tree;
  for (std::size_t i = 0; i < components.size(); ++i) {
    const std::string& c = components[i];
    if (cur->is_null()) *cur = Json::object();
    if (cur->is_array()) {
      const auto index = parse_index(c);
      if (!index || *index >= cur->size()) return;
      cur = &(*cur)[*index];
    } else if (cur->is_object()) {
      const bool last = i + 1 == components.size();
      if (last) {
        // A key given as null ("key:") took the default: fill it in where it was written.
        if (!cur->contains(c) || (*cur)[c].is_null()) (*cur)[c] = value;
        return;
      }
      cur = &(*cur)[c];
    } else {
      return;  // a scalar where a map was read: child() already reported it
    }
  }
}

// ---- check_unused ----

void check_read(const Impl& impl, const YAML::Node& node, const std::string& path) {
  if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string key_path = path + "." + it->first.Scalar();
      if (impl.read.count(key_path) == 0) {
        const auto known = impl.known_keys(path);
        std::string msg =
            impl.location(key_path, it->first.Mark()) + ": " + key_path + ": unknown key";
        if (!known.empty()) msg += " (known keys here: " + join(known, ", ") + ")";
        throw ConfigError(msg);
      }
      check_read(impl, it->second, key_path);
    }
  } else if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      check_read(impl, node[i], path + "." + std::to_string(i));
    }
  }
}

// ---- loading ----

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const auto dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string::npos ? dot : dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

// Applies one "root.a.b=value". Missing or null maps along the path are created; the nodes it
// creates or replaces are remembered so that their errors point at the --set, not the file.
void apply_override(Impl& impl, const std::string& text) {
  if (const std::size_t bad = invalid_utf8_at(text); bad != std::string::npos)
    throw ConfigError("--set " + text.substr(0, bad) + "...: not UTF-8 text: byte " +
                      hex_byte(static_cast<unsigned char>(text[bad])));
  const auto eq = text.find('=');
  const std::string path = text.substr(0, eq);
  const auto parts = split_path(path);
  bool bad_path = eq == std::string::npos || path.empty();
  for (const auto& p : parts) bad_path = bad_path || p.empty();
  if (bad_path) {
    throw ConfigError("--set " + text +
                      ": expected KEY.PATH=VALUE, e.g. drive.nand.page_size=16KiB");
  }
  if (parts[0] != impl.root_key) return;  // belongs to the other document
  const std::string where = "--set " + path;
  if (parts.size() < 2) {
    throw ConfigError(where + ": expected a key below '" + impl.root_key + "', e.g. " +
                      impl.root_key + ".KEY=VALUE");
  }

  YAML::Node value;
  try {
    value.reset(YAML::Load(text.substr(eq + 1)));
  } catch (const YAML::Exception& e) {
    throw ConfigError(where + ": YAML syntax error in the value: " + e.msg);
  }
  validate_keys(impl, value, path, &path);

  // Entries under this path now all come from this override.
  for (auto it = impl.override_origin.lower_bound(path + ".");
       it != impl.override_origin.end() &&
       it->first.compare(0, path.size() + 1, path + ".") == 0;) {
    it = impl.override_origin.erase(it);
  }

  YAML::Node cur(impl.root);
  std::string cur_path = impl.root_key;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    const std::string sub_path = cur_path + "." + part;
    const bool last = i + 1 == parts.size();
    YAML::Node next;
    if (cur.IsSequence()) {
      const auto index = parse_index(part);
      if (!index || *index >= cur.size()) {
        throw ConfigError(where + ": no list element " + part + " (" + cur_path + " has " +
                          std::to_string(cur.size()) + " elements)");
      }
      if (last) {
        cur[*index] = value;
        break;
      }
      next.reset(static_cast<const YAML::Node&>(cur)[*index]);
      if (next.IsNull()) {
        cur[*index] = YAML::Node(YAML::NodeType::Map);
        next.reset(static_cast<const YAML::Node&>(cur)[*index]);
        impl.override_origin[sub_path] = path;
      }
    } else if (cur.IsMap()) {
      if (last) {
        cur[part] = value;
        break;
      }
      const auto kv = find_key(cur, part);
      if (kv && !kv->second.IsNull()) {
        next.reset(kv->second);
      } else {
        cur[part] = YAML::Node(YAML::NodeType::Map);
        next.reset(find_key(cur, part)->second);
        impl.override_origin[sub_path] = path;
      }
    } else {
      throw ConfigError(where + ": " + cur_path + " is " + describe(cur) + ", so it has no key '" +
                        part + "'");
    }
    cur.reset(next);
    cur_path = sub_path;
  }
  impl.override_origin[path] = path;
}

void validate_root(Impl& impl, const YAML::Node& doc) {
  const std::string wanted = "expected a map with the single top-level key '" + impl.root_key + "'";
  if (!doc.IsMap()) {
    throw ConfigError(impl.at(doc.Mark()) + ": " + wanted + ", got " + describe(doc));
  }
  if (doc.size() == 0) {
    throw ConfigError(impl.at(doc.Mark()) + ": " + wanted + ", got an empty map");
  }
  bool seen = false;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : describe(it->first);
    if (key != impl.root_key) {
      throw ConfigError(impl.at(it->first.Mark()) + ": " + key +
                        ": unexpected top-level key, expected only '" + impl.root_key + "'");
    }
    if (seen) throw ConfigError(impl.at(it->first.Mark()) + ": " + key + ": duplicate key");
    seen = true;
  }
}

}  // namespace

std::string printable(std::string_view text) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7F) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    } else {
      out += ch;  // printable ASCII, or a byte of UTF-8 text
    }
  }
  return out;
}

// ---- unit parsers ----

std::optional<std::uint64_t> parse_bytes(const std::string& text) {
  std::string_view rest;
  const auto d = read_decimal(text, &rest);
  if (!d) return std::nullopt;
  const auto unit = read_unit(rest);
  if (!unit) return std::nullopt;
  constexpr std::uint64_t kKi = 1024;
  static const std::map<std::string_view, std::uint64_t> kUnits = {
      {"", 1},
      {"B", 1},
      {"kB", 1000},
      {"KB", 1000},
      {"MB", 1000 * 1000},
      {"GB", 1000ull * 1000 * 1000},
      {"TB", 1000ull * 1000 * 1000 * 1000},
      {"KiB", kKi},
      {"MiB", kKi * kKi},
      {"GiB", kKi * kKi * kKi},
      {"TiB", kKi * kKi * kKi * kKi},
      // fio style: the bare letter is binary.
      {"K", kKi},
      {"M", kKi * kKi},
      {"G", kKi * kKi * kKi},
      {"T", kKi * kKi * kKi * kKi},
  };
  const auto it = kUnits.find(*unit);
  if (it == kUnits.end()) return std::nullopt;
  return scale(*d, it->second, /*round_nearest=*/false);
}

std::optional<Tick> parse_time(const std::string& text) {
  if (text == "0") return 0;
  std::string_view rest;
  const auto d = read_decimal(text, &rest);
  if (!d) return std::nullopt;
  const auto unit = read_unit(rest);
  if (!unit) return std::nullopt;
  static const std::map<std::string_view, Tick> kUnits = {
      {"ns", kNs}, {"us", kUs}, {"\xC2\xB5s", kUs}, {"ms", kMs}, {"s", kSec},
  };
  const auto it = kUnits.find(*unit);
  if (it == kUnits.end()) return std::nullopt;
  return scale(*d, it->second, /*round_nearest=*/true);
}

std::optional<double> parse_mts(const std::string& text) {
  std::string_view rest;
  const auto v = read_plain_double(text, &rest);
  if (!v || *v <= 0) return std::nullopt;
  if (rest.empty()) return v;
  const auto unit = read_unit(rest);
  if (!unit || *unit != "MT/s") return std::nullopt;
  return v;
}

// ---- ConfigNode ----

ConfigNode::ConfigNode(ConfigDoc* doc, std::shared_ptr<YAML::Node> node, std::string path)
    : doc_(doc), node_(std::move(node)), path_(std::move(path)) {}

std::uint64_t ConfigNode::get_bytes(const std::string& key) const {
  const Slot s = open_slot(*doc_->impl_, *node_, path_, key);
  if (!s.present()) throw_missing(s, path_);
  return read_bytes(s);
}

Tick ConfigNode::get_time(const std::string& key) const {
  const Slot s = open_slot(*doc_->impl_, *node_, path_, key);
  if (!s.present()) throw_missing(s, path_);
  return read_time(s);
}

std::int64_t ConfigNode::get_int(const std::string& key, std::int64_t min, std::int64_t max) const {
  const Slot s = open_slot(*doc_->impl_, *node_, path_, key);
  if (!s.present()) throw_missing(s, path_);
  return read_int(s, min, max);
}

double ConfigNode::get_double(const std::string& key, double min, double max) const {
  const Slot s = open_slot(*doc_->impl_, *node_, path_, key);
  if (!s.present()) throw_missing(s, path_);
  return read_double(s, min, max);
}

bool ConfigNode::get_bool(const std::string& key) const {
  const Slot s = open_slot(*doc_->impl_, *node_, path_, key);
  if (!s.present()) throw_missing(s, path_);
  return read_bool(s);
}

std::string ConfigNode::get_string(const std::string& key) const {
  const Slot s = open_slot(*doc_->impl_, *node_, path_, key);
  if (!s.present()) throw_missing(s, path_);
  return s.scalar("a string");
}

std::string ConfigNode::get_enum(const std::string& key,
                                 const std::vector<std::string>& choices) const {
  const Slot s = open_slot(*doc_->impl_, *node_, path_, key);
  if (!s.present()) throw_missing(s, path_);
  return read_enum(s, choices);
}

Amount ConfigNode::get_amount(const std::string& key) const {
  const Slot s = open_slot(*doc_->impl_, *node_, path_, key);
  if (!s.present()) throw_missing(s, path_);
  return read_amount(s);
}

double ConfigNode::get_rate_mts(const std::string& key) const {
  const Slot s = open_slot(*doc_->impl_, *node_, path_, key);
  if (!s.present()) throw_missing(s, path_);
  const char what[] = "a transfer rate such as 800MT/s";
  const auto v = parse_mts(s.scalar(what));
  if (!v) s.expected(what);
  return *v;
}

std::uint64_t ConfigNode::get_bytes(const std::string& key, std::uint64_t def) const {
  const Slot s = open_slot(*doc_->impl_, *node_, path_, key);
  if (s.given()) return read_bytes(s);
  doc_->impl_->record_default(path_, key, def);
  return def;
}

Tick ConfigNode::get_time(const std::string& key, Tick def) const {
  const Slot s = open_slot(*doc_->impl_, *node_, path_, key);
  if (s.given()) return read_time(s);
  doc_->impl_->record_default(path_, key, format_time(def));
  return def;
}

std::int64_t ConfigNode::get_int(const std::string& key, std::int64_t def, std::int64_t min,
                                 std::int64_t max) const {
  const Slot s = open_slot(*doc_->impl_, *node_, path_, key);
  if (s.given()) return read_int(s, min, max);
  doc_->impl_->record_default(path_, key, def);
  return def;
}

double ConfigNode::get_double(const std::string& key, double def, double min, double max) const {
  const Slot s = open_slot(*doc_->impl_, *node_, path_, key);
  if (s.given()) return read_double(s, min, max);
  doc_->impl_->record_default(path_, key, def);
  return def;
}

bool ConfigNode::get_bool(const std::string& key, bool def) const {
  const Slot s = open_slot(*doc_->impl_, *node_, path_, key);
  if (s.given()) return read_bool(s);
  doc_->impl_->record_default(path_, key, def);
  return def;
}

std::string ConfigNode::get_string(const std::string& key, const std::string& def) const {
  const Slot s = open_slot(*doc_->impl_, *node_, path_, key);
  if (s.given()) return s.scalar("a string");
  doc_->impl_->record_default(path_, key, def);
  return def;
}

std::string ConfigNode::get_enum(const std::string& key, const std::vector<std::string>& choices,
                                 const std::string& def) const {
  const Slot s = open_slot(*doc_->impl_, *node_, path_, key);
  if (s.given()) return read_enum(s, choices);
  doc_->impl_->record_default(path_, key, def);
  return def;
}

Amount ConfigNode::get_amount(const std::string& key, const Amount& def) const {
  const Slot s = open_slot(*doc_->impl_, *node_, path_, key);
  if (s.given()) return read_amount(s);
  doc_->impl_->record_default(path_, key, amount_json(def));
  return def;
}

namespace {

// A present slot holding one value or a non-empty list of them, each read by `read`.
template <typename T, typename Read>
std::vector<T> read_scalar_or_list(Impl& impl, const Slot& s, const std::string& what, Read read) {
  if (s.value.IsScalar()) return {read(s)};
  if (!s.value.IsSequence() || s.value.size() == 0) s.expected(what);
  std::vector<T> out;
  for (std::size_t i = 0; i < s.value.size(); ++i) {
    out.push_back(read(element_slot(impl, s.path, i, s.value[i])));
  }
  return out;
}

}  // namespace

std::vector<Tick> ConfigNode::get_time_list(const std::string& key) const {
  Impl& impl = *doc_->impl_;
  const Slot s = open_slot(impl, *node_, path_, key);
  if (!s.present()) throw_missing(s, path_);
  return read_scalar_or_list<Tick>(impl, s, "a time such as 50us or a non-empty list of times",
                                   read_time);
}

std::vector<std::int64_t> ConfigNode::get_int_list(const std::string& key, std::int64_t def,
                                                   std::int64_t min, std::int64_t max) const {
  Impl& impl = *doc_->impl_;
  const Slot s = open_slot(impl, *node_, path_, key);
  if (!s.given()) {
    impl.record_default(path_, key, def);
    return {def};
  }
  return read_scalar_or_list<std::int64_t>(impl, s, "an integer or a non-empty list of integers",
                                           [&](const Slot& e) { return read_int(e, min, max); });
}

std::vector<std::uint64_t> ConfigNode::get_bytes_list(const std::string& key,
                                                      std::uint64_t def) const {
  Impl& impl = *doc_->impl_;
  const Slot s = open_slot(impl, *node_, path_, key);
  if (!s.given()) {
    impl.record_default(path_, key, def);
    return {def};
  }
  return read_scalar_or_list<std::uint64_t>(
      impl, s, "a size such as 128KiB or a non-empty list of sizes", read_bytes);
}

std::vector<std::string> ConfigNode::get_value_texts(const std::string& key) const {
  Impl& impl = *doc_->impl_;
  const Slot s = open_slot(impl, *node_, path_, key);
  if (!s.present()) throw_missing(s, path_);
  if (!s.value.IsSequence() || s.value.size() == 0) s.expected("a non-empty list of values");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.value.size(); ++i) {
    const Slot e = element_slot(impl, s.path, i, s.value[i]);
    if (e.value.IsNull()) e.expected("a value");
    if (e.value.IsScalar()) {
      out.push_back(e.value.Scalar());
      continue;
    }
    YAML::Emitter em;
    em << YAML::Flow << e.value;
    out.push_back(em.c_str());
    mark_subtree_read(impl, e.value, e.path);
  }
  return out;
}

ConfigNode ConfigNode::child(const std::string& key) const {
  Impl& impl = *doc_->impl_;
  const Slot s = open_slot(impl, *node_, path_, key);
  auto components = impl.components_of(path_);
  components.push_back(key);
  if (s.present()) {
    if (!s.value.IsMap()) s.expected("a map");
    const YAML::Mark mark = s.value.Mark();
    impl.register_node(s.path, std::move(components), mark.is_null() ? s.key_mark : mark);
    return ConfigNode(doc_, std::make_shared<YAML::Node>(s.value), s.path);
  }
  // Not in the tree: a detached empty map, so getters below it take their defaults.
  const YAML::Mark mark = s.exists ? s.key_mark : impl.nodes.at(path_).mark;
  impl.register_node(s.path, std::move(components), mark);
  return ConfigNode(doc_, std::make_shared<YAML::Node>(YAML::NodeType::Map), s.path);
}

std::vector<ConfigNode> ConfigNode::children(const std::string& key) const {
  Impl& impl = *doc_->impl_;
  const Slot s = open_slot(impl, *node_, path_, key);
  if (!s.present()) throw_missing(s, path_);
  if (!s.value.IsSequence()) s.expected("a list of maps");
  auto components = impl.components_of(path_);
  components.push_back(key);
  std::vector<ConfigNode> out;
  for (std::size_t i = 0; i < s.value.size(); ++i) {
    const Slot e = element_slot(impl, s.path, i, s.value[i]);
    if (!e.value.IsMap()) e.expected("a map");
    auto element_components = components;
    element_components.push_back(std::to_string(i));
    impl.register_node(e.path, std::move(element_components), e.value.Mark());
    out.push_back(ConfigNode(doc_, std::make_shared<YAML::Node>(e.value), e.path));
  }
  return out;
}

bool ConfigNode::has(const std::string& key) const {
  const auto kv = find_key(*node_, key);
  return kv && !kv->second.IsNull();
}

void ConfigNode::fail(const std::string& key, const std::string& what) const {
  Impl& impl = *doc_->impl_;
  if (key.empty()) throw ConfigError(impl.node_location(path_) + ": " + path_ + ": " + what);
  const std::string path = path_ + "." + key;
  if (const auto kv = find_key(*node_, key)) {
    const Slot s{impl, path, true, kv->first.Mark(), YAML::Node(kv->second)};
    throw ConfigError(s.location() + ": " + path + ": " + what);
  }
  throw ConfigError(impl.node_location(path_) + ": " + path + ": " + what);
}

// ---- ConfigDoc ----

ConfigDoc::ConfigDoc() : impl_(std::make_unique<Impl>()) {}
ConfigDoc::~ConfigDoc() = default;

std::unique_ptr<ConfigDoc> ConfigDoc::load(const std::string& file, const std::string& root_key,
                                           const std::vector<std::string>& overrides) {
  // C stdio rather than ifstream: a directory opens fine as a stream, and the read error
  // would otherwise look like an empty document.
  std::FILE* f = std::fopen(file.c_str(), "rb");
  if (!f) throw ConfigError(file + ": cannot open file");
  std::string text;
  char buf[8192];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) throw ConfigError(file + ": cannot read file");
  return parse(text, file, root_key, overrides);
}

std::unique_ptr<ConfigDoc> ConfigDoc::parse(const std::string& text, const std::string& file,
                                            const std::string& root_key,
                                            const std::vector<std::string>& overrides) {
  std::unique_ptr<ConfigDoc> doc(new ConfigDoc());
  Impl& impl = *doc->impl_;
  impl.file = file;
  impl.root_key = root_key;

  // yaml-cpp 0.7 (Debian 12's) never returns from YAML::LoadAll on a stray ',' outside any
  // [ ] or { } (",", "[a],", "{a: b},"): it yields a null document at the same token again
  // and again, allocating until memory runs out (jbeder/yaml-cpp#1040; fixed upstream in
  // 2024 by #1318 and #1319). Found by fuzz/. A first pass over the documents' events sees a
  // document start where the one before started, and reports it; every other document
  // consumes input, so that pass, and LoadAll after it, end.
  struct DocumentStarts : YAML::EventHandler {
    std::vector<YAML::Mark> marks;
    void OnDocumentStart(const YAML::Mark& mark) override { marks.push_back(mark); }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
  };
  if (const std::size_t bad = invalid_utf8_at(text); bad != std::string::npos) {
    const std::string_view before(text.data(), bad);
    const std::size_t line_start = before.rfind('\n');
    YAML::Mark mark;
    mark.line = static_cast<int>(std::count(before.begin(), before.end(), '\n'));
    mark.column =
        static_cast<int>(line_start == std::string_view::npos ? bad : bad - line_start - 1);
    throw ConfigError(impl.at(mark) + ": not UTF-8 text (a YAML file must be): byte " +
                      hex_byte(static_cast<unsigned char>(text[bad])));
  }
  std::vector<YAML::Node> docs;
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentStarts starts;
    while (parser.HandleNextDocument(starts)) {
      const auto& m = starts.marks;
      if (m.size() >= 2 && m[m.size() - 1].pos == m[m.size() - 2].pos)
        throw ConfigError(
            impl.at(m.back()) +
            ": YAML syntax error: unexpected text here (e.g. a ',' outside [ ] or { })");
    }
    docs = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(impl.at(e.mark) + ": YAML syntax error: " + e.msg);
  }
  if (docs.size() > 1) {
    throw ConfigError(impl.at(docs[1].Mark()) + ": expected a single YAML document");
  }
  if (docs.empty() || docs[0].IsNull()) {
    throw ConfigError(file + ": expected a map with the single top-level key '" + root_key +
                      "', got an empty document");
  }
  impl.doc.reset(docs[0]);
  validate_root(impl, impl.doc);
  const auto root_kv = find_key(impl.doc, root_key);
  validate_keys(impl, root_kv->second, root_key, nullptr);
  YAML::Mark root_mark = root_kv->second.Mark();
  if (root_kv->second.IsNull()) {
    // "drive:" with nothing below: an empty map, so overrides and defaults have a home.
    impl.doc[root_key] = YAML::Node(YAML::NodeType::Map);
    root_mark = root_kv->first.Mark();
  } else if (!root_kv->second.IsMap()) {
    throw ConfigError(impl.at(root_kv->first.Mark()) + ": " + root_key + ": expected a map, got " +
                      describe(root_kv->second));
  }
  impl.root.reset(find_key(impl.doc, root_key)->second);
  if (root_mark.is_null()) root_mark = root_kv->first.Mark();
  impl.register_node(root_key, {root_key}, root_mark);

  for (const auto& o : overrides) apply_override(impl, o);
  return doc;
}

ConfigNode ConfigDoc::root() {
  return ConfigNode(this, std::make_shared<YAML::Node>(impl_->root), impl_->root_key);
}

void ConfigDoc::check_unused() const { check_read(*impl_, impl_->root, impl_->root_key); }

std::string ConfigDoc::resolved_json() const {
  Json tree = to_json(impl_->doc);
  for (const auto& [components, value] : impl_->defaults) insert_default(&tree, components, value);
  // Replace rather than throw on bytes that are not UTF-8: this is a report, not an input.
  return tree.dump(2, ' ', false, Json::error_handler_t::replace);
}

const std::string& ConfigDoc::file() const { return impl_->file; }

const std::string& ConfigNode::file() const { return doc_->file(); }

}  // namespace ssdtwin
