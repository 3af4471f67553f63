#include "ftl/namespaces.h"

#include <algorithm>

#include "ftl/ftl_stats.h"
#include "sim/config.h"
#include "sim/params.h"

namespace ssdtwin {

Namespaces::Namespaces(std::uint64_t user_bytes, std::uint32_t handles) {
  Namespace n{1, 0, user_bytes / kSectorBytes, {}};
  for (std::uint32_t h = 0; h < std::max(handles, 1u); ++h)
    n.handles.push_back(static_cast<PlacementHandle>(h));
  list_.push_back(std::move(n));
  index();
}

void Namespaces::index() {
  std::uint32_t top = 0;
  for (const Namespace& n : list_) top = std::max(top, n.id);
  by_id_.assign(top + 1, -1);
  for (std::size_t i = 0; i < list_.size(); ++i) by_id_[list_[i].id] = static_cast<int>(i);
}

namespace {

const ParamSection kNamespaceSection{
    "drive.namespaces[]",
    "One NVMe namespace: a range of the drive's logical pages, and the reclaim unit handles "
    "its placement identifiers select.",
    {
        param::integer("id", nullptr, 1, 1024, "", "NVMe namespace id, unique"),
        param::bytes("size", nullptr, "size of the namespace, a positive multiple of 4KiB"),
        param::bytes("offset", "(where the previous namespace ends)",
                     "where the namespace starts in the user capacity, a multiple of 4KiB"),
        param::int_list("placement_handles", "(every handle of ftl.fdp)", 0, 65535, "",
                        "the FDP reclaim unit handles its placement identifiers 0, 1, ... "
                        "select"),
    }};

}  // namespace

std::vector<const ParamSection*> Namespaces::params() { return {&kNamespaceSection}; }

Namespaces Namespaces::from_config(const Params& drive, std::uint64_t user_bytes,
                                   std::uint32_t handles) {
  if (!drive.has("namespaces")) return Namespaces(user_bytes, handles);
  Namespaces ns;
  const std::uint64_t capacity = user_bytes / kSectorBytes;
  std::uint64_t next = 0;
  const std::vector<Params> nodes = drive.children("namespaces", kNamespaceSection);
  if (nodes.size() > FtlStats::kMaxNamespaces)
    drive.fail("namespaces", "expected at most " + std::to_string(FtlStats::kMaxNamespaces) +
                                 " namespaces (their flash writes are counted apart)");
  for (const Params& n : nodes) {
    Namespace s;
    // NVMe namespace ids run from 1; a config this large is a mistake.
    s.id = static_cast<std::uint32_t>(n.integer("id"));
    if (ns.find(s.id) != nullptr) n.fail("id", "expected an id no other namespace has");
    const std::uint64_t bytes = n.bytes("size");
    if (bytes == 0 || bytes % kSectorBytes != 0)
      n.fail("size", "expected a positive multiple of 4KiB");
    s.pages = bytes / kSectorBytes;
    const std::uint64_t offset = n.bytes("offset", next * kSectorBytes);
    if (offset % kSectorBytes != 0) n.fail("offset", "expected a multiple of 4KiB");
    s.first = offset / kSectorBytes;
    if (s.first + s.pages > capacity)
      n.fail("size", "expected the namespace to end within the drive's user capacity (" +
                         std::to_string(user_bytes) + " bytes)");
    for (const Namespace& o : ns.list_)
      if (s.first < o.first + o.pages && o.first < s.first + s.pages)
        n.fail(n.has("offset") ? "offset" : "size",
               "expected a range that overlaps no other namespace (namespace " +
                   std::to_string(o.id) + " holds bytes " + std::to_string(o.first * kSectorBytes) +
                   " to " + std::to_string((o.first + o.pages) * kSectorBytes) + ")");
    // Without a list, every handle (a namespace created with all of them).
    std::vector<std::int64_t> every;
    for (std::uint32_t k = 0; k < handles; ++k) every.push_back(k);
    const std::vector<std::int64_t> h = n.int_list("placement_handles", every);
    s.handles.clear();
    for (std::int64_t v : h) {
      if (v >= static_cast<std::int64_t>(handles))
        n.fail("placement_handles", "expected reclaim unit handles below " +
                                        std::to_string(handles) + " (ftl.fdp.handles declares " +
                                        std::to_string(handles) + ")");
      s.handles.push_back(static_cast<PlacementHandle>(v));
    }
    next = s.first + s.pages;
    ns.list_.push_back(std::move(s));
    ns.index();
  }
  if (ns.list_.empty()) drive.fail("namespaces", "expected at least one namespace");
  return ns;
}

std::size_t Namespaces::index_of(Lpn lpn) const {
  for (std::size_t i = 0; i < list_.size(); ++i)
    if (lpn >= list_[i].first && lpn < list_[i].first + list_[i].pages) return i;
  return list_.size();
}

std::vector<std::uint64_t> Namespaces::bytes_by_id() const {
  std::vector<std::uint64_t> b(by_id_.size(), 0);
  for (const Namespace& n : list_) b[n.id] = n.bytes();
  return b;
}

}  // namespace ssdtwin
