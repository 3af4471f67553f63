#include "sim/params.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace ssdtwin {

namespace {

std::vector<std::string> split_choices(const char* text) {
  std::vector<std::string> out;
  std::string cur;
  for (const char* p = text; *p; ++p) {
    if (*p == '|') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += *p;
    }
  }
  out.push_back(cur);
  return out;
}

Param make(const char* key, ParamKind kind, const char* def, const char* doc) {
  Param p;
  p.key = key;
  p.kind = kind;
  p.def = def;
  p.doc = doc;
  return p;
}

const char* kind_name(ParamKind k) {
  switch (k) {
    case ParamKind::kBytes:
      return "size";
    case ParamKind::kTime:
      return "time";
    case ParamKind::kInt:
      return "integer";
    case ParamKind::kReal:
      return "number";
    case ParamKind::kBool:
      return "bool";
    case ParamKind::kText:
      return "text";
    case ParamKind::kChoice:
      return "choice";
    case ParamKind::kAmount:
      return "size or %";
    case ParamKind::kRate:
      return "rate";
    case ParamKind::kTimeList:
      return "time(s)";
    case ParamKind::kIntList:
      return "integer(s)";
    case ParamKind::kBytesList:
      return "size(s)";
    case ParamKind::kValues:
      return "values";
    case ParamKind::kMap:
      return "map";
    case ParamKind::kMaps:
      return "list of maps";
  }
  return "?";
}

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// The range column: only what limits a value beyond its kind.
std::string range_text(const Param& p) {
  std::string unit = p.unit[0] ? std::string(" ") + p.unit : "";
  switch (p.kind) {
    case ParamKind::kInt:
    case ParamKind::kIntList: {
      const bool lo = p.imin != INT64_MIN, hi = p.imax != INT64_MAX;
      if (lo && hi) return std::to_string(p.imin) + ".." + std::to_string(p.imax) + unit;
      if (lo) return ">= " + std::to_string(p.imin) + unit;
      if (hi) return "<= " + std::to_string(p.imax) + unit;
      return unit.empty() ? "" : unit.substr(1);
    }
    case ParamKind::kReal:
      if (p.dmin == 0 && p.dmax == 0) return unit.empty() ? "" : unit.substr(1);
      return format_number(p.dmin) + ".." + format_number(p.dmax) + unit;
    case ParamKind::kChoice: {
      std::string out;
      for (const std::string& c : p.choices()) out += (out.empty() ? "" : ", ") + c;
      return out;
    }
    default:
      return "";
  }
}

std::string default_text(const Param& p) {
  if (p.kind == ParamKind::kMap || p.kind == ParamKind::kMaps) return "";
  return p.required() ? "required" : p.def;
}

// A default that does not parse as its kind is a declaration bug.
bool default_parses(const Param& p) {
  if (p.required() || p.computed_default()) return true;
  const std::string d = p.def;
  switch (p.kind) {
    case ParamKind::kBytes:
    case ParamKind::kBytesList:
      return parse_bytes(d).has_value();
    case ParamKind::kTime:
    case ParamKind::kTimeList:
      return parse_time(d).has_value();
    case ParamKind::kInt:
    case ParamKind::kIntList: {
      const auto v = parse_int(d);
      return v && *v >= p.imin && *v <= p.imax;
    }
    case ParamKind::kReal: {
      const auto v = parse_double(d);
      return v && (p.dmin == 0 && p.dmax == 0 ? true : *v >= p.dmin && *v <= p.dmax);
    }
    case ParamKind::kBool:
      return d == "true" || d == "false";
    case ParamKind::kChoice: {
      const auto c = p.choices();
      return std::find(c.begin(), c.end(), d) != c.end();
    }
    case ParamKind::kAmount:
      return parse_amount(d).has_value();
    case ParamKind::kRate:
      return parse_mts(d).has_value();
    case ParamKind::kText:
      return true;
    case ParamKind::kValues:
    case ParamKind::kMap:
    case ParamKind::kMaps:
      return true;  // nothing to parse
  }
  return false;
}

// A number's declared range; both bounds 0 declare none.
std::pair<double, double> real_range(const Param& p) {
  if (p.dmin == 0 && p.dmax == 0) return {-1e300, 1e300};
  return {p.dmin, p.dmax};
}

template <typename T>
T parsed(const std::optional<T>& v, const Param& p) {
  if (!v) throw std::logic_error(std::string("parameter ") + p.key + ": bad declared default");
  return *v;
}

}  // namespace

std::vector<std::string> Param::choices() const {
  if (table_choices) return table_choices();
  if (fixed_choices) return split_choices(fixed_choices);
  return {};
}

namespace param {
Param bytes(const char* key, const char* def, const char* doc) {
  return make(key, ParamKind::kBytes, def, doc);
}
Param time(const char* key, const char* def, const char* doc) {
  return make(key, ParamKind::kTime, def, doc);
}
Param integer(const char* key, const char* def, std::int64_t min, std::int64_t max,
              const char* unit, const char* doc) {
  Param p = make(key, ParamKind::kInt, def, doc);
  p.imin = min, p.imax = max, p.unit = unit;
  return p;
}
Param real(const char* key, const char* def, double min, double max, const char* unit,
           const char* doc) {
  Param p = make(key, ParamKind::kReal, def, doc);
  p.dmin = min, p.dmax = max, p.unit = unit;
  return p;
}
Param flag(const char* key, const char* def, const char* doc) {
  return make(key, ParamKind::kBool, def, doc);
}
Param text(const char* key, const char* def, const char* doc) {
  return make(key, ParamKind::kText, def, doc);
}
Param choice(const char* key, const char* def, const char* choices, const char* doc) {
  Param p = make(key, ParamKind::kChoice, def, doc);
  p.fixed_choices = choices;
  return p;
}
Param choice(const char* key, const char* def, std::vector<std::string> (*choices)(),
             const char* doc) {
  Param p = make(key, ParamKind::kChoice, def, doc);
  p.table_choices = choices;
  return p;
}
Param amount(const char* key, const char* def, const char* doc) {
  return make(key, ParamKind::kAmount, def, doc);
}
Param rate(const char* key, const char* def, const char* doc) {
  return make(key, ParamKind::kRate, def, doc);
}
Param time_list(const char* key, const char* def, const char* doc) {
  return make(key, ParamKind::kTimeList, def, doc);
}
Param int_list(const char* key, const char* def, std::int64_t min, std::int64_t max,
               const char* unit, const char* doc) {
  Param p = integer(key, def, min, max, unit, doc);
  p.kind = ParamKind::kIntList;
  return p;
}
Param bytes_list(const char* key, const char* def, const char* doc) {
  return make(key, ParamKind::kBytesList, def, doc);
}
Param values(const char* key, const char* doc) {
  return make(key, ParamKind::kValues, nullptr, doc);
}
Param map(const char* key, const char* doc) { return make(key, ParamKind::kMap, "", doc); }
Param maps(const char* key, const char* doc) { return make(key, ParamKind::kMaps, nullptr, doc); }
}  // namespace param

const Param* ParamSection::find(std::string_view key) const {
  for (const Param& p : params) {
    if (key == p.key) return &p;
  }
  return nullptr;
}

Params::Params(const ConfigNode& node, const ParamSection& section)
    : node_(node), section_(&section) {}

const Param& Params::declared(const char* key, ParamKind kind, bool computed) const {
  const Param* p = section_->find(key);
  if (!p)
    throw std::logic_error("config key " + section_->path + "." + key +
                           " is read but not declared");
  if (p->kind != kind)
    throw std::logic_error("config key " + section_->path + "." + key + " is declared as " +
                           kind_name(p->kind) + " but read as " + kind_name(kind));
  if (computed != p->computed_default())
    throw std::logic_error("config key " + section_->path + "." + key +
                           (computed ? " is given a computed default it does not declare"
                                     : " declares a computed default its reader does not give"));
  return *p;
}

std::uint64_t Params::bytes(const char* key) const {
  const Param& p = declared(key, ParamKind::kBytes, false);
  if (p.required()) return node_.get_bytes(key);
  return node_.get_bytes(key, parsed(parse_bytes(p.def), p));
}
Tick Params::time(const char* key) const {
  const Param& p = declared(key, ParamKind::kTime, false);
  if (p.required()) return node_.get_time(key);
  return node_.get_time(key, parsed(parse_time(p.def), p));
}
std::int64_t Params::integer(const char* key) const {
  const Param& p = declared(key, ParamKind::kInt, false);
  if (p.required()) return node_.get_int(key, p.imin, p.imax);
  return node_.get_int(key, parsed(parse_int(p.def), p), p.imin, p.imax);
}
double Params::real(const char* key) const {
  const Param& p = declared(key, ParamKind::kReal, false);
  const auto [lo, hi] = real_range(p);
  if (p.required()) return node_.get_double(key, lo, hi);
  return node_.get_double(key, parsed(parse_double(p.def), p), lo, hi);
}
bool Params::flag(const char* key) const {
  const Param& p = declared(key, ParamKind::kBool, false);
  if (p.required()) return node_.get_bool(key);
  return node_.get_bool(key, std::string(p.def) == "true");
}
std::string Params::text(const char* key) const {
  const Param& p = declared(key, ParamKind::kText, false);
  if (p.required()) return node_.get_string(key);
  return node_.get_string(key, p.def);
}
std::string Params::choice(const char* key) const {
  const Param& p = declared(key, ParamKind::kChoice, false);
  if (p.required()) return node_.get_enum(key, p.choices());
  return node_.get_enum(key, p.choices(), p.def);
}
Amount Params::amount(const char* key) const {
  const Param& p = declared(key, ParamKind::kAmount, false);
  if (p.required()) return node_.get_amount(key);
  return node_.get_amount(key, parsed(parse_amount(p.def), p));
}
double Params::rate(const char* key) const {
  const Param& p = declared(key, ParamKind::kRate, false);
  if (!p.required()) throw std::logic_error(std::string("rate ") + p.key + ": only required");
  return node_.get_rate_mts(key);
}
std::vector<Tick> Params::time_list(const char* key) const {
  const Param& p = declared(key, ParamKind::kTimeList, false);
  if (!p.required()) throw std::logic_error(std::string("time list ") + p.key + ": only required");
  return node_.get_time_list(key);
}
std::vector<std::int64_t> Params::int_list(const char* key) const {
  const Param& p = declared(key, ParamKind::kIntList, false);
  return node_.get_int_list(key, parsed(parse_int(p.def ? p.def : ""), p), p.imin, p.imax);
}
std::vector<std::uint64_t> Params::bytes_list(const char* key) const {
  const Param& p = declared(key, ParamKind::kBytesList, false);
  return node_.get_bytes_list(key, parsed(parse_bytes(p.def ? p.def : ""), p));
}
std::vector<std::string> Params::values(const char* key) const {
  declared(key, ParamKind::kValues, false);
  return node_.get_value_texts(key);
}

std::uint64_t Params::bytes(const char* key, std::uint64_t computed) const {
  declared(key, ParamKind::kBytes, true);
  return node_.get_bytes(key, computed);
}
Tick Params::time(const char* key, Tick computed) const {
  declared(key, ParamKind::kTime, true);
  return node_.get_time(key, computed);
}
std::int64_t Params::integer(const char* key, std::int64_t computed) const {
  const Param& p = declared(key, ParamKind::kInt, true);
  return node_.get_int(key, computed, p.imin, p.imax);
}
double Params::real(const char* key, double computed) const {
  const Param& p = declared(key, ParamKind::kReal, true);
  const auto [lo, hi] = real_range(p);
  return node_.get_double(key, computed, lo, hi);
}
bool Params::flag(const char* key, bool computed) const {
  declared(key, ParamKind::kBool, true);
  return node_.get_bool(key, computed);
}
std::string Params::text(const char* key, const std::string& computed) const {
  declared(key, ParamKind::kText, true);
  return node_.get_string(key, computed);
}
std::string Params::choice(const char* key, const std::string& computed) const {
  const Param& p = declared(key, ParamKind::kChoice, true);
  return node_.get_enum(key, p.choices(), computed);
}
Amount Params::amount(const char* key, const Amount& computed) const {
  declared(key, ParamKind::kAmount, true);
  return node_.get_amount(key, computed);
}

namespace {
// The narrower of the declared and the given range.
template <typename T>
std::pair<T, T> narrowed(T declared_lo, T declared_hi, T lo, T hi) {
  return {std::max(declared_lo, lo), std::min(declared_hi, hi)};
}
}  // namespace

std::int64_t Params::integer_within(const char* key, std::int64_t lo, std::int64_t hi) const {
  const Param& p = declared(key, ParamKind::kInt, false);
  const auto [a, b] = narrowed(p.imin, p.imax, lo, hi);
  if (p.required()) return node_.get_int(key, a, b);
  return node_.get_int(key, parsed(parse_int(p.def), p), a, b);
}
std::int64_t Params::integer_within(const char* key, std::int64_t computed, std::int64_t lo,
                                    std::int64_t hi) const {
  const Param& p = declared(key, ParamKind::kInt, true);
  const auto [a, b] = narrowed(p.imin, p.imax, lo, hi);
  return node_.get_int(key, computed, a, b);
}
double Params::real_within(const char* key, double lo, double hi) const {
  const Param& p = declared(key, ParamKind::kReal, false);
  const auto [dlo, dhi] = real_range(p);
  const auto [a, b] = narrowed(dlo, dhi, lo, hi);
  if (p.required()) return node_.get_double(key, a, b);
  return node_.get_double(key, parsed(parse_double(p.def), p), a, b);
}
double Params::real_within(const char* key, double computed, double lo, double hi) const {
  const Param& p = declared(key, ParamKind::kReal, true);
  const auto [dlo, dhi] = real_range(p);
  const auto [a, b] = narrowed(dlo, dhi, lo, hi);
  return node_.get_double(key, computed, a, b);
}
std::vector<std::int64_t> Params::int_list(const char* key,
                                           const std::vector<std::int64_t>& computed) const {
  const Param& p = declared(key, ParamKind::kIntList, true);
  if (!node_.has(key)) return computed;
  return node_.get_int_list(key, 0, p.imin, p.imax);
}
std::vector<Tick> Params::time_list(const char* key, const std::vector<Tick>& computed) const {
  declared(key, ParamKind::kTimeList, true);
  return node_.has(key) ? node_.get_time_list(key) : computed;
}
std::vector<std::uint64_t> Params::bytes_list(const char* key,
                                              const std::vector<std::uint64_t>& computed) const {
  declared(key, ParamKind::kBytesList, true);
  return node_.has(key) ? node_.get_bytes_list(key, 0) : computed;
}

Params Params::child(const char* key, const ParamSection& section) const {
  declared(key, ParamKind::kMap, false);
  return Params(node_.child(key), section);
}

std::vector<Params> Params::children(const char* key, const ParamSection& section) const {
  declared(key, ParamKind::kMaps, false);
  std::vector<Params> out;
  for (const ConfigNode& n : node_.children(key)) out.emplace_back(n, section);
  return out;
}

ConfigNode Params::map(const char* key) const {
  declared(key, ParamKind::kMap, false);
  return node_.child(key);
}

std::vector<ConfigNode> Params::maps(const char* key) const {
  declared(key, ParamKind::kMaps, false);
  return node_.children(key);
}

namespace {

// Sections merged by path, in first-seen order.
std::vector<std::pair<std::string, std::vector<const ParamSection*>>> by_path(
    const std::vector<const ParamSection*>& sections) {
  std::vector<std::pair<std::string, std::vector<const ParamSection*>>> out;
  for (const ParamSection* s : sections) {
    auto it =
        std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == s->path; });
    if (it == out.end()) {
      out.push_back({s->path, {s}});
    } else {
      it->second.push_back(s);
    }
  }
  return out;
}

std::string md_cell(std::string text) {
  std::string out;
  for (const char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

}  // namespace

std::string params_listing(const std::vector<const ParamSection*>& sections,
                           const std::string& prefix) {
  std::ostringstream out;
  for (const auto& [path, parts] : by_path(sections)) {
    for (const ParamSection* s : parts) {
      for (const Param& p : s->params) {
        const std::string full = path + "." + p.key;
        if (full.compare(0, prefix.size(), prefix) != 0) continue;
        std::string type = kind_name(p.kind);
        const std::string range = range_text(p);
        if (!range.empty()) type += " [" + range + "]";
        out << full << "  (" << type << ")";
        const std::string def = default_text(p);
        if (!def.empty()) out << "  default " << def;
        out << "\n    " << p.doc << "\n";
      }
    }
  }
  return out.str();
}

std::string params_markdown(const std::vector<const ParamSection*>& sections,
                            const std::string& intro) {
  std::ostringstream out;
  out << intro;
  for (const auto& [path, parts] : by_path(sections)) {
    out << "\n## `" << path << "`\n\n";
    for (const ParamSection* s : parts) {
      if (!s->title.empty()) out << s->title << "\n\n";
    }
    out << "| key | kind | default | range | meaning |\n|---|---|---|---|---|\n";
    for (const ParamSection* s : parts) {
      for (const Param& p : s->params) {
        const std::string def = default_text(p);
        out << "| `" << p.key << "` | " << kind_name(p.kind) << " | "
            << (def.empty() ? "" : md_cell(def)) << " | " << md_cell(range_text(p)) << " | "
            << md_cell(p.doc) << " |\n";
      }
    }
  }
  return out.str();
}

std::string check_declarations(const std::vector<const ParamSection*>& sections) {
  for (const auto& [path, parts] : by_path(sections)) {
    std::set<std::string> seen;
    for (const ParamSection* s : parts) {
      for (const Param& p : s->params) {
        if (!seen.insert(p.key).second) return path + "." + p.key + ": declared twice";
        if (std::string(p.doc).empty()) return path + "." + p.key + ": no description";
        if (!default_parses(p))
          return path + "." + p.key + ": default '" + (p.def ? p.def : "") + "' is not a valid " +
                 kind_name(p.kind);
        if (p.kind == ParamKind::kChoice && p.choices().empty())
          return path + "." + p.key + ": a choice with no choices";
      }
    }
  }
  return "";
}

}  // namespace ssdtwin
