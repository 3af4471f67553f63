#include "app/metric_json.h"

#include <utility>

namespace ssdtwin {

using Json = nlohmann::ordered_json;

Json metric_json(const MetricValue& m) {
  switch (m.kind) {
    case MetricValue::Kind::kInt:
      return Json(m.i);
    case MetricValue::Kind::kReal:
      return Json(m.d);
    case MetricValue::Kind::kBool:
      return Json(m.i != 0);
    case MetricValue::Kind::kList:
      return Json(m.list);
    case MetricValue::Kind::kReals:
      return Json(m.reals);
    case MetricValue::Kind::kText:
      return Json(m.text);
    case MetricValue::Kind::kJson:
      return Json::parse(m.text);
    case MetricValue::Kind::kCounts: {
      Json o = Json::object();  // {} when nothing was counted
      for (const auto& [key, n] : m.counts) o[key] = n;
      return o;
    }
    default:
      return Json(nullptr);
  }
}

void put_at(Json& j, const std::string& dotted, Json v) {
  Json* node = &j;
  std::size_t from = 0;
  for (std::size_t dot; (dot = dotted.find('.', from)) != std::string::npos; from = dot + 1)
    node = &(*node)[dotted.substr(from, dot - from)];
  (*node)[dotted.substr(from)] = std::move(v);
}

const Json* find_at(const Json& j, const std::string& dotted) {
  const Json* node = &j;
  std::size_t from = 0;
  for (;;) {
    const std::size_t dot = dotted.find('.', from);
    const std::string key = dotted.substr(from, dot == std::string::npos ? dot : dot - from);
    if (!node->is_object()) return nullptr;
    const auto it = node->find(key);
    if (it == node->end()) return nullptr;
    node = &*it;
    if (dot == std::string::npos) return node;
    from = dot + 1;
  }
}

}  // namespace ssdtwin
