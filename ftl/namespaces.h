// NVMe namespaces: each a range of the drive's logical pages that the host
// addresses from LBA 0, with its own list of placement handles (NVMe FDP:
// a write's placement identifier indexes it). Firmware allocates a
// namespace's capacity from the drive's NVM; here each is a contiguous range
// of the FTL's logical space, in declared order unless `offset` places it.
// A drive that declares none has one, namespace 1, of its whole capacity.
//
//   drive:
//     namespaces:
//       - {id: 1, size: 200GB}
//       - {id: 2, size: 50GB, placement_handles: [1, 2]}
//
// A namespace's placement handles default to all the FDP handles (ftl.fdp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ftl/address.h"
#include "ftl/translation.h"

namespace ssdtwin {

class ConfigNode;
struct ParamSection;
class Params;

struct Namespace {
  std::uint32_t id = 1;
  Lpn first = 0;            // first logical page in the drive's space
  std::uint64_t pages = 0;  // 4 KiB logical pages
  std::vector<PlacementHandle> handles{0};
  std::uint64_t bytes() const { return pages * kSectorBytes; }
};

class Namespaces {
 public:
  // One namespace of the whole capacity, with every one of `handles`
  // reclaim unit handles as its placement handles.
  explicit Namespaces(std::uint64_t user_bytes, std::uint32_t handles = 1);
  // `drive.namespaces` (absent: one of the whole capacity); `handles`: the
  // reclaim unit handles the FTL has (placement handles must be below).
  static Namespaces from_config(const Params& drive, std::uint64_t user_bytes,
                                std::uint32_t handles);
  static std::vector<const ParamSection*> params();  // its keys, declared (sim/params.h)

  std::size_t size() const { return list_.size(); }
  const std::vector<Namespace>& list() const { return list_; }
  // The namespace with NVMe id `nsid`, or nullptr.
  const Namespace* find(std::uint32_t nsid) const {
    return nsid < by_id_.size() && by_id_[nsid] >= 0
               ? &list_[static_cast<std::size_t>(by_id_[nsid])]
               : nullptr;
  }
  // Index in list() of the namespace holding drive page `lpn` (list().size()
  // for a page in none).
  std::size_t index_of(Lpn lpn) const;
  // Bytes of namespace `nsid` by id, 0 for an id not declared (for
  // resolving workload sizes): index nsid.
  std::vector<std::uint64_t> bytes_by_id() const;

 private:
  Namespaces() = default;
  void index();
  std::vector<Namespace> list_;
  std::vector<int> by_id_;
};

}  // namespace ssdtwin
