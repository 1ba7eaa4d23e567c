// base/last_lookup: the answer of the last lookup, kept beside a map. In a capture pass the
// packets of one message come back to back, so most of them find their flow (or message state)
// again without hashing their key.
#pragma once

#include <optional>
#include <utility>

namespace toposcope {

template <class Key, class Value>
class LastLookup {
 public:
  // The value of `key`: the kept one when `key` is the last key looked up, else `lookup(key)`
  // (a std::optional<Value>), kept unless it is nullopt.
  template <class Lookup>
  std::optional<Value> Find(const Key& key, Lookup&& lookup) {
    if (!value_ || !(key_ == key)) {
      std::optional<Value> found = std::forward<Lookup>(lookup)(key);
      if (!found) return std::nullopt;
      key_ = key;
      value_ = std::move(found);
    }
    return value_;
  }

 private:
  Key key_{};
  std::optional<Value> value_;
};

}  // namespace toposcope
