//! A small concurrent memo table (sharded `RwLock<HashMap>`), used to cache
//! directory listings, path lookups and parsed ELF files across the rayon
//! workers.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, RandomState};
use std::sync::RwLock;

const SHARDS: usize = 32;

pub struct Memo<K, V> {
    shards: Vec<RwLock<HashMap<K, V>>>,
    hasher: RandomState,
}

impl<K: Eq + Hash, V: Clone> Default for Memo<K, V> {
    fn default() -> Self {
        Memo {
            shards: (0..SHARDS).map(|_| RwLock::new(HashMap::new())).collect(),
            hasher: RandomState::new(),
        }
    }
}

impl<K: Eq + Hash, V: Clone> Memo<K, V> {
    fn shard<Q: Hash + ?Sized>(&self, key: &Q) -> &RwLock<HashMap<K, V>> {
        &self.shards[(self.hasher.hash_one(key) as usize) % SHARDS]
    }

    pub fn get<Q>(&self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let shard = self.shard(key).read().unwrap_or_else(|e| e.into_inner());
        shard.get(key).cloned()
    }

    pub fn insert(&self, key: K, value: V) -> V {
        let mut shard = self.shard(&key).write().unwrap_or_else(|e| e.into_inner());
        shard.entry(key).or_insert(value).clone()
    }

    /// Returns the cached value or computes it (outside the lock; two threads
    /// may compute the same value, the first one stored wins).
    pub fn get_or_insert_with<Q>(&self, key: &Q, make: impl FnOnce() -> V) -> V
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        if let Some(v) = self.get(key) {
            return v;
        }
        let v = make();
        self.insert(key.to_owned(), v)
    }

    pub fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| s.read().unwrap_or_else(|e| e.into_inner()).len())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caches_first_value() {
        let m: Memo<String, u32> = Memo::default();
        assert_eq!(m.get_or_insert_with("a", || 1), 1);
        assert_eq!(m.get_or_insert_with("a", || 2), 1);
        assert_eq!(m.insert("a".into(), 3), 1);
        assert_eq!(m.len(), 1);
        assert_eq!(m.get("b"), None);
    }
}
