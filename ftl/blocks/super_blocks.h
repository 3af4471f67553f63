// Super-blocks (ftl.rain.span: dies): block index B on every die of a group
// of `width` consecutive dies (die indices are channel-first, so a group
// spreads over channels), allocated and erased in lockstep, so that a RAIN
// stripe can take one unit from each member die (ftl/blocks/rain_stripes.h).
//
// Allocation: per (group, stream) the group keeps the sequence of
// super-blocks opened for that stream. Each member die's write point walks
// that sequence in order: a die that fills its block opens its block of the
// next super-block in the sequence, and a new super-block is taken from the
// group's pool only by a die at the end of the sequence. So the members
// fill the same super-blocks in the same order, each at its own pace.
//
// Members: a super-block's members are the dies whose block B is in service
// (erased, not bad, not a spare, die not failed) when the group takes it
// from the pool. A die whose block B is bad skips the super-block, and its
// stripes have one member fewer; a member whose block fails later (a
// program failure closes it early) simply stops contributing units, and the
// stripes it would have held the parity of have none.
//
// Erase: a member erases its block of a victim only when no member holds
// valid data in the super-block any more (RelocationEngine::may_erase), and
// the super-block returns to the group's pool once every member still in
// service has erased its block (ftl/gc/relocation_engine.h collects victims by
// super-block), so no stripe ever outlives one of its members.
//
// A failed die: it leaves every super-block (never a member again, so the
// group's stripes have one member fewer from then on; parity rotates over
// the others); super-blocks it held data in wait, before their members
// erase, until its rebuild has moved that data (ReadRecovery::rebuild_die).
// The drive's flash shrinks by the die: its free blocks stay counted in
// free_blocks(die) but nothing is written there, and the user data the
// live dies must hold eats into their spare area.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

namespace ssdtwin {

struct SuperBlockTable {
  enum class State : std::uint8_t {
    kIdle,    // no member in service (spare indices)
    kPooled,  // in the group's pool: erased on every member
    kInUse,   // taken: members are writing or hold data
    kVictim,  // chosen by GC: members erase their blocks in turn
  };
  std::uint32_t width = 0;             // dies per group; 0: super-blocks off
  std::uint32_t blocks = 0;            // block indices per die
  std::vector<State> state;            // [group * blocks + B]
  std::vector<std::uint64_t> members;  // [group * blocks + B]: member dies' bits (die % width)
  struct Pool {                        // FIFO of pooled super-blocks
    std::vector<std::uint32_t> ring;
    std::uint32_t head = 0, count = 0;
    void push(std::uint32_t b) {
      ring[(head + count) % ring.size()] = b;
      ++count;
    }
    std::uint32_t pop() {
      const std::uint32_t b = ring[head];
      head = (head + 1) % static_cast<std::uint32_t>(ring.size());
      --count;
      return b;
    }
  };
  std::vector<Pool> pools;  // per group
  // Per (group, stream): super-blocks opened for the stream, the first at
  // absolute position `base`; entries every live member has passed are dropped.
  std::vector<std::deque<std::uint32_t>> sequence;
  std::vector<std::uint64_t> base;
  std::vector<std::uint64_t> cursor;  // [die * streams + stream]: next sequence position to open

  bool enabled() const { return width != 0; }
  std::uint32_t group_of(std::uint32_t die) const { return die / width; }
  std::size_t at(std::uint32_t group, std::uint32_t block) const {
    return std::size_t{group} * blocks + block;
  }
  bool member(std::uint32_t die, std::uint32_t block) const {
    return (members[at(group_of(die), block)] >> (die % width)) & 1;
  }
  // Super-block `block` of `die`'s group is taken and not chosen by GC.
  bool in_use(std::uint32_t die, std::uint32_t block) const {
    return state[at(group_of(die), block)] == State::kInUse;
  }
  // The member die holding the parity of unit position `pos` of super-block
  // `block` of `group`: member (block + pos) % width, RAID-5-like rotation;
  // if that die is not a member, its turn in round pos / width goes to the
  // (round % members)-th member after it (cyclically), so the members share
  // a missing one's parity evenly (a failed die is missing from every
  // super-block: one member taking all its turns would fill its blocks
  // faster than the rest and stall the group's lockstep allocation).
  // None (UINT32_MAX) with fewer than two members: a stripe of one unit has
  // nothing to protect it with.
  std::uint32_t parity_die(std::uint32_t group, std::uint32_t block, std::uint32_t pos) const;
};

}  // namespace ssdtwin
