// Pointers inside by-value parameters: the rules are in param_pointers.h.
#include "tilescope/capture/param_pointers.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>

namespace tilescope {

const char* pointerWordClassName(PointerWordClass c) {
  switch (c) {
    case PointerWordClass::pointer:
      return "pointer";
    case PointerWordClass::unreferenced:
      return "unreferenced";
    case PointerWordClass::ambiguous:
      return "ambiguous";
  }
  return "pointer";
}

std::string hexAddress(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

bool PointerPlan::hasAmbiguous() const {
  return std::any_of(words.begin(), words.end(),
                     [](const PointerWord& w) { return w.cls == PointerWordClass::ambiguous; });
}

namespace {

/// Pass 1: every aligned non-zero word that lies inside a live allocation.
std::vector<PointerWord> candidateWords(const std::vector<ByteParam>& params,
                                        const AllocationLookup& lookup) {
  std::vector<PointerWord> out;
  for (const ByteParam& p : params) {
    for (std::size_t off = 0; off + 8 <= p.bytes.size(); off += 8) {
      std::uint64_t v = 0;
      std::memcpy(&v, p.bytes.data() + off, 8);
      if (v == 0) continue;
      const std::optional<DeviceAllocation> a = lookup(v);
      if (!a || !a->contains(v)) continue;
      PointerWord w;
      w.param = p.name;
      w.offset = std::uint32_t(off);
      w.value = v;
      w.allocation = *a;
      out.push_back(w);
    }
  }
  return out;
}

/// Pass 2: corroborated, unreferenced or ambiguous (param_pointers.h).
void classify(std::vector<PointerWord>& words, const std::vector<PointerParam>& pointers) {
  std::map<std::uint64_t, int> reach;  // allocation base -> references
  for (const PointerParam& p : pointers) ++reach[p.allocation.base];
  for (const PointerWord& w : words) ++reach[w.allocation.base];
  for (PointerWord& w : words) {
    const bool corroborated = w.value == w.allocation.base || reach[w.allocation.base] > 1;
    if (corroborated)
      w.cls = PointerWordClass::pointer;
    else if ((w.value - w.allocation.base) % 4 == 0)
      w.cls = PointerWordClass::unreferenced;
    else
      w.cls = PointerWordClass::ambiguous;
  }
}

/// Each allocation that relocated words reach gets one tensor: the top-level
/// pointer that starts at its lowest used address, else a region there.
void assignTargets(PointerPlan& plan, const std::vector<PointerParam>& pointers) {
  std::map<std::uint64_t, std::uint64_t> lowest;  // allocation base -> lowest address used
  std::map<std::uint64_t, DeviceAllocation> allocations;
  for (const PointerWord& w : plan.words) {
    if (w.cls == PointerWordClass::ambiguous) continue;
    auto [it, fresh] = lowest.emplace(w.allocation.base, w.value);
    if (!fresh) it->second = std::min(it->second, w.value);
    allocations[w.allocation.base] = w.allocation;
  }
  // Top-level pointers into one allocation (`out` and `out + k`): one tensor,
  // so that what the kernel writes through one the other sees.
  std::map<std::uint64_t, int> tops;
  for (const PointerParam& p : pointers) ++tops[p.allocation.base];
  for (const PointerParam& p : pointers) {
    if (tops[p.allocation.base] > 1) {
      lowest.emplace(p.allocation.base, p.ptr);
      allocations.emplace(p.allocation.base, p.allocation);
    }
    if (auto it = lowest.find(p.allocation.base); it != lowest.end())
      it->second = std::min(it->second, p.ptr);
  }
  std::map<std::uint64_t, std::pair<std::string, std::uint64_t>> target;  // base -> (name, start)
  for (const auto& [base, start] : lowest) {
    std::string name;
    for (const PointerParam& p : pointers)
      if (p.allocation.base == base && p.ptr == start) {
        name = p.name;
        break;
      }
    if (name.empty()) {
      MemoryRegion r;
      r.name = "m" + std::to_string(plan.regions.size());
      r.start = start;
      r.allocation = allocations[base];
      plan.regions.push_back(r);
      name = r.name;
    }
    target[base] = {name, start};
  }
  for (PointerWord& w : plan.words) {
    if (w.cls == PointerWordClass::ambiguous) continue;
    const auto& [name, start] = target[w.allocation.base];
    w.target = name;
    w.delta = std::int64_t(w.value - start);
  }
  for (const PointerParam& p : pointers) {
    auto it = target.find(p.allocation.base);
    if (it == target.end() || it->second.first == p.name) continue;
    plan.rebased.push_back({p.name, it->second.first, std::int64_t(p.ptr - it->second.second)});
  }
}

std::string wordList(const std::vector<const PointerWord*>& words) {
  std::string s;
  std::size_t shown = 0;
  for (const PointerWord* w : words) {
    if (shown == 8) {
      s += ", and " + std::to_string(words.size() - shown) + " more";
      break;
    }
    s += (shown++ ? ", " : "") + std::string("+") + std::to_string(w->offset) + " = " + hexAddress(w->value);
  }
  return s;
}

void addNotes(PointerPlan& plan, const std::vector<ByteParam>& params) {
  for (const ByteParam& p : params) {
    std::vector<const PointerWord*> unreferenced, ambiguous;
    for (const PointerWord& w : plan.words) {
      if (w.param != p.name) continue;
      if (w.cls == PointerWordClass::unreferenced) unreferenced.push_back(&w);
      if (w.cls == PointerWordClass::ambiguous) ambiguous.push_back(&w);
    }
    if (!unreferenced.empty())
      plan.notes.push_back(p.name + ": " + std::to_string(unreferenced.size()) +
                           " word(s) relocated as pointers although no other argument reaches their "
                           "allocations (an integer of that value would be changed): " +
                           wordList(unreferenced));
    if (!ambiguous.empty())
      plan.notes.push_back("warning: " + p.name + ": " + std::to_string(ambiguous.size()) +
                           " word(s) lie inside device allocations but cannot be told apart from integers "
                           "(not 4-byte aligned there, nothing else reaches them): replayed as the recorded "
                           "bytes, not relocated: " +
                           wordList(ambiguous));
  }
}

}  // namespace

PointerPlan planParamPointers(const std::vector<ByteParam>& params, const std::vector<PointerParam>& pointers,
                              const AllocationLookup& lookup) {
  PointerPlan plan;
  plan.words = candidateWords(params, lookup);
  classify(plan.words, pointers);
  assignTargets(plan, pointers);
  addNotes(plan, params);
  return plan;
}

std::uint64_t leadBytesFor(std::uint64_t ptr, std::uint64_t allocationBase, std::uint64_t cap) {
  if (ptr <= allocationBase) return 0;
  const std::uint64_t room = std::min(ptr - allocationBase, cap);
  const std::uint64_t residue = ptr % 256;
  if (room < residue) return room;  // the allocation starts off a 256-byte boundary
  return residue + (room - residue) / 256 * 256;
}

}  // namespace tilescope
