//! The transposition table: a lock-free hash table of search results that
//! any number of search threads can share.
//!
//! Each bucket is one 64-byte cache line holding four entries. An entry is two
//! `AtomicU64` words: `key ^ data` and `data`. A reader accepts an entry only
//! when the two words XOR back to its own key, so an entry torn by two
//! concurrent writers, or written for another position, is never trusted.
//! Loads and stores are `Relaxed`: the XOR check, not ordering, guarantees
//! consistency. The move stored is only a hint and is matched against the
//! legal moves of the node before use.

use crate::score::{Score, TB_WIN_BOUND};
use shakmaty::{Move, MoveList};
use std::alloc::Layout;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

/// Entries per bucket.
const BUCKET_ENTRIES: usize = 4;
/// Tables up to this size (MB) are cleared in place rather than reallocated.
const CLEAR_IN_PLACE_MB: usize = 256;
/// Generations wrap at this value (6 bits in the entry).
const GENERATION_CYCLE: u8 = 64;

/// What a stored score says about the true value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// The true value is at most the score (the search failed low).
    Upper = 1,
    /// The true value is at least the score (the search failed high).
    Lower = 2,
    /// The score is exact.
    Exact = 3,
}

impl Bound {
    fn from_bits(bits: u64) -> Option<Bound> {
        match bits {
            1 => Some(Bound::Upper),
            2 => Some(Bound::Lower),
            3 => Some(Bound::Exact),
            _ => None,
        }
    }
}

/// A decoded table entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TtEntry {
    /// The best or refuting move, packed with [`pack_move`] (0 if none).
    pub packed_move: u16,
    /// The score, already adjusted to the probing node's ply.
    pub score: Score,
    /// The static evaluation of the position.
    pub eval: Score,
    /// The depth the score was searched to.
    pub depth: i32,
    /// What the score bounds.
    pub bound: Bound,
}

#[repr(C, align(64))]
struct Bucket {
    words: [AtomicU64; 2 * BUCKET_ENTRIES],
}

/// The shared transposition table.
pub struct TranspositionTable {
    buckets: BucketMemory,
    megabytes: usize,
    generation: AtomicU8,
}

/// Why the table could not be resized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllocationError {
    /// The size that was asked for.
    pub megabytes: usize,
}

impl std::fmt::Display for AllocationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot allocate {} MB of hash", self.megabytes)
    }
}

/// The table's memory: `count` zeroed buckets.
///
/// On Unix it is anonymous memory mapped directly from the operating system,
/// which hands out zeroed pages only when they are first touched: a table of
/// many gigabytes is ready at once. On Linux the mapping is aligned to 2 MB
/// and transparent huge pages are asked for, which spares the search most
/// TLB misses on a large table, and a background thread has the kernel back
/// the pages of a large table (without touching their contents) so that the
/// first search does not pay for every page it reaches. Elsewhere the memory
/// comes from the global allocator, zeroed.
struct BucketMemory {
    buckets: NonNull<Bucket>,
    count: usize,
    #[cfg(target_os = "linux")]
    prefault: Option<Prefault>,
}

// SAFETY: the memory is owned by this value alone and holds only atomics.
unsafe impl Send for BucketMemory {}
// SAFETY: shared access only hands out `&[Bucket]`, which is `Sync`.
unsafe impl Sync for BucketMemory {}

/// Huge pages on x86-64 and AArch64 Linux are 2 MB.
#[cfg(target_os = "linux")]
const HUGE_PAGE_BYTES: usize = 2 << 20;
/// Tables from this size on have their pages backed in the background.
#[cfg(target_os = "linux")]
const PREFAULT_MIN_BYTES: usize = 256 << 20;
/// The background thread backs this much memory between two looks at its stop flag.
#[cfg(target_os = "linux")]
const PREFAULT_CHUNK_BYTES: usize = 16 << 20;

/// A thread that asks the kernel to back a mapping's pages, writable, as a
/// write would, without changing the memory (`MADV_POPULATE_WRITE`, Linux
/// 5.14 and later; on older kernels it ends at once and the pages come in
/// as the search touches them). Searches may read and write the table
/// meanwhile.
#[cfg(target_os = "linux")]
struct Prefault {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: std::thread::JoinHandle<()>,
}

#[cfg(target_os = "linux")]
impl Prefault {
    fn start(address: usize, length: usize) -> Prefault {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stopped = std::sync::Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("hash-prefault".to_string())
            .spawn(move || {
                for offset in (0..length).step_by(PREFAULT_CHUNK_BYTES) {
                    if stopped.load(Ordering::Relaxed) {
                        return;
                    }
                    let chunk = PREFAULT_CHUNK_BYTES.min(length - offset);
                    // SAFETY: the range lies inside the mapping, which stays
                    // mapped until this thread has been joined; populating
                    // changes no byte of it.
                    let result = unsafe {
                        libc::madvise(
                            (address + offset) as *mut libc::c_void,
                            chunk,
                            libc::MADV_POPULATE_WRITE,
                        )
                    };
                    if result != 0 {
                        return;
                    }
                }
            })
            .expect("spawning the hash prefault thread");
        Prefault { stop, thread }
    }

    /// Stops the thread and waits for it, so that the memory may go.
    fn finish(self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.thread.join();
    }
}

impl BucketMemory {
    /// `count` zeroed buckets, or `None` when the memory cannot be had.
    fn zeroed(count: usize) -> Option<BucketMemory> {
        let layout = Layout::array::<Bucket>(count).ok()?;
        if layout.size() == 0 {
            return None;
        }
        let buckets = Self::map(layout)?;
        Some(BucketMemory {
            buckets,
            count,
            #[cfg(target_os = "linux")]
            prefault: (layout.size() >= PREFAULT_MIN_BYTES)
                .then(|| Prefault::start(buckets.as_ptr() as usize, layout.size())),
        })
    }

    #[cfg(unix)]
    fn map(layout: Layout) -> Option<NonNull<Bucket>> {
        #[cfg(target_os = "linux")]
        let (align, extra) = (HUGE_PAGE_BYTES, HUGE_PAGE_BYTES);
        #[cfg(not(target_os = "linux"))]
        let (align, extra) = (layout.align(), 0);
        let length = layout.size().checked_add(extra)?;
        // SAFETY: an anonymous private mapping at an address of the kernel's
        // choosing touches no existing memory; failure is checked below.
        let start = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                length,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if start == libc::MAP_FAILED {
            return None;
        }
        let start = start as usize;
        let aligned = start.next_multiple_of(align);
        let end = start + length;
        // SAFETY: the parts before `aligned` and after the table lie inside
        // the mapping just made and are not used; unmapping them keeps only
        // the aligned table mapped.
        unsafe {
            if aligned > start {
                libc::munmap(start as *mut libc::c_void, aligned - start);
            }
            let table_end = aligned + layout.size();
            if end > table_end {
                libc::munmap(table_end as *mut libc::c_void, end - table_end);
            }
            #[cfg(target_os = "linux")]
            libc::madvise(
                aligned as *mut libc::c_void,
                layout.size(),
                libc::MADV_HUGEPAGE,
            );
        }
        NonNull::new(aligned as *mut Bucket)
    }

    #[cfg(not(unix))]
    fn map(layout: Layout) -> Option<NonNull<Bucket>> {
        // SAFETY: the layout has a non-zero size (checked by the caller).
        NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) }.cast::<Bucket>())
    }

    fn layout(&self) -> Layout {
        Layout::array::<Bucket>(self.count).expect("the layout of an allocated table")
    }
}

impl std::ops::Deref for BucketMemory {
    type Target = [Bucket];

    fn deref(&self) -> &[Bucket] {
        // SAFETY: the memory holds `count` buckets, zeroed when made (all-zero
        // atomics are valid values), and lives as long as `self`.
        unsafe { std::slice::from_raw_parts(self.buckets.as_ptr(), self.count) }
    }
}

impl Drop for BucketMemory {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        if let Some(prefault) = self.prefault.take() {
            prefault.finish();
        }
        let layout = self.layout();
        // SAFETY: the memory was mapped (or allocated) by `map` with this
        // layout and is released once, here.
        #[cfg(unix)]
        unsafe {
            libc::munmap(self.buckets.as_ptr().cast(), layout.size());
        }
        #[cfg(not(unix))]
        unsafe {
            std::alloc::dealloc(self.buckets.as_ptr().cast(), layout);
        }
    }
}

fn bucket_count(megabytes: usize) -> usize {
    (megabytes.max(1) << 20) / std::mem::size_of::<Bucket>()
}

/// Packs a move into 16 bits: from (6) | to (6) | promotion role (3) | castle (1).
pub fn pack_move(m: Move) -> u16 {
    let (from, to, promotion, castle) = match m {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => (from, to, promotion.map_or(0, |r| r as u16), 0),
        Move::EnPassant { from, to } => (from, to, 0, 0),
        Move::Castle { king, rook } => (king, rook, 0, 1),
        Move::Put { to, .. } => (to, to, 0, 0),
    };
    from as u16 | (to as u16) << 6 | promotion << 12 | castle << 15
}

/// Finds the legal move that `packed` stands for, if any.
pub fn unpack_move(packed: u16, legal: &MoveList) -> Option<Move> {
    if packed == 0 {
        return None;
    }
    legal.iter().copied().find(|&m| pack_move(m) == packed)
}

/// Converts a score to the form stored in the table: mate scores and
/// tablebase results count plies from the node rather than from the root, so
/// they stay right when the same position is reached at another ply.
pub fn score_to_tt(score: Score, ply: usize) -> Score {
    if score >= TB_WIN_BOUND {
        score + ply as Score
    } else if score <= -TB_WIN_BOUND {
        score - ply as Score
    } else {
        score
    }
}

/// Inverse of [`score_to_tt`].
pub fn score_from_tt(score: Score, ply: usize) -> Score {
    if score >= TB_WIN_BOUND {
        score - ply as Score
    } else if score <= -TB_WIN_BOUND {
        score + ply as Score
    } else {
        score
    }
}

impl TranspositionTable {
    /// A table of `megabytes` MB (at least 1).
    pub fn new(megabytes: usize) -> Result<TranspositionTable, AllocationError> {
        let megabytes = megabytes.max(1);
        let buckets =
            BucketMemory::zeroed(bucket_count(megabytes)).ok_or(AllocationError { megabytes })?;
        Ok(TranspositionTable {
            buckets,
            megabytes,
            generation: AtomicU8::new(0),
        })
    }

    /// The size in MB.
    pub fn megabytes(&self) -> usize {
        self.megabytes
    }

    /// Changes the size; the contents are lost. Nothing happens when the size
    /// is unchanged. The new table is allocated while the old one still
    /// exists, so that on failure the old one is kept with its contents.
    /// Zeroed pages are only promised, not touched (see `BucketMemory`),
    /// so this takes no time whatever the size, and on systems that check
    /// each allocation against the memory there is (Linux by default) it
    /// needs no more than the new size.
    pub fn resize(&mut self, megabytes: usize) -> Result<(), AllocationError> {
        let megabytes = megabytes.max(1);
        if megabytes == self.megabytes {
            return Ok(());
        }
        let buckets =
            BucketMemory::zeroed(bucket_count(megabytes)).ok_or(AllocationError { megabytes })?;
        self.buckets = buckets;
        self.megabytes = megabytes;
        Ok(())
    }

    /// Empties the table. Small tables are zeroed in place, which keeps their
    /// pages mapped; large ones get fresh zeroed memory from the operating
    /// system, which costs nothing up front whatever the size.
    pub fn clear(&mut self) {
        if self.megabytes <= CLEAR_IN_PLACE_MB {
            for word in self.buckets.iter().flat_map(|bucket| &bucket.words) {
                word.store(0, Ordering::Relaxed);
            }
        } else {
            let count = self.buckets.len();
            // The old memory goes first, so that both never exist at once.
            self.buckets = BucketMemory::zeroed(1).expect("one bucket of memory");
            self.buckets =
                BucketMemory::zeroed(count).expect("reallocating a table of the size just freed");
        }
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Starts a new search: entries of older searches become preferred victims.
    pub fn new_search(&self) {
        let next = (self.generation.load(Ordering::Relaxed) + 1) % GENERATION_CYCLE;
        self.generation.store(next, Ordering::Relaxed);
    }

    fn bucket(&self, key: u64) -> &Bucket {
        let index = ((u128::from(key) * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[index]
    }

    /// Starts loading `key`'s bucket into the CPU cache, so that a probe or
    /// store soon after does not wait on memory. Only a hint: it changes no
    /// result, and does nothing where the CPU has no prefetch instruction.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        let bucket: *const Bucket = self.bucket(key);
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch never faults and writes nothing; the address is
        // that of a live bucket anyway.
        unsafe {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            _mm_prefetch::<_MM_HINT_T0>(bucket.cast::<i8>());
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = bucket;
    }

    /// Looks a position up. The score comes back adjusted to `ply`.
    pub fn probe(&self, key: u64, ply: usize) -> Option<TtEntry> {
        let bucket = self.bucket(key);
        for slot in 0..BUCKET_ENTRIES {
            let data = bucket.words[2 * slot + 1].load(Ordering::Relaxed);
            let check = bucket.words[2 * slot].load(Ordering::Relaxed);
            if data != 0 && check ^ data == key {
                let bound = Bound::from_bits((data >> 56) & 3)?;
                return Some(TtEntry {
                    packed_move: data as u16,
                    score: score_from_tt(i32::from((data >> 16) as i16), ply),
                    eval: i32::from((data >> 32) as i16),
                    depth: i32::from((data >> 48) as u8) - 1,
                    bound,
                });
            }
        }
        None
    }

    /// Stores a search result. `depth` is clamped to 0..=254.
    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &self,
        key: u64,
        ply: usize,
        packed_move: u16,
        score: Score,
        eval: Score,
        depth: i32,
        bound: Bound,
    ) {
        let generation = self.generation.load(Ordering::Relaxed);
        let bucket = self.bucket(key);
        let mut victim = 0;
        let mut victim_worth = i32::MAX;
        let mut old_move = 0u16;
        for slot in 0..BUCKET_ENTRIES {
            let data = bucket.words[2 * slot + 1].load(Ordering::Relaxed);
            let check = bucket.words[2 * slot].load(Ordering::Relaxed);
            if data == 0 || check ^ data == key {
                victim = slot;
                if data != 0 {
                    old_move = data as u16;
                    let old_depth = i32::from((data >> 48) as u8) - 1;
                    // Keep a deeper result of this search for the same key
                    // unless the new one is exact.
                    let same_search = (data >> 58) as u8 == generation;
                    if bound != Bound::Exact && same_search && old_depth > depth + 3 {
                        return;
                    }
                }
                break;
            }
            let age =
                i32::from((generation + GENERATION_CYCLE - (data >> 58) as u8) % GENERATION_CYCLE);
            let worth = i32::from((data >> 48) as u8) - 8 * age;
            if worth < victim_worth {
                victim_worth = worth;
                victim = slot;
            }
        }
        let packed_move = if packed_move == 0 {
            old_move
        } else {
            packed_move
        };
        let depth = depth.clamp(0, 254) + 1;
        let data = u64::from(packed_move)
            | u64::from(score_to_tt(score, ply) as i16 as u16) << 16
            | u64::from(eval.clamp(-32000, 32000) as i16 as u16) << 32
            | (depth as u64) << 48
            | (bound as u64) << 56
            | u64::from(generation) << 58;
        bucket.words[2 * victim].store(key ^ data, Ordering::Relaxed);
        bucket.words[2 * victim + 1].store(data, Ordering::Relaxed);
    }

    /// How full the table is, in permill, sampled from its first thousand
    /// entries: only entries written by the current search count.
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation.load(Ordering::Relaxed);
        let sample = self.buckets.iter().take(1000 / BUCKET_ENTRIES);
        let mut total = 0u32;
        let mut used = 0u32;
        for bucket in sample {
            for slot in 0..BUCKET_ENTRIES {
                let data = bucket.words[2 * slot + 1].load(Ordering::Relaxed);
                total += 1;
                if data != 0 && (data >> 58) as u8 == generation {
                    used += 1;
                }
            }
        }
        (used * 1000).checked_div(total).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position};

    #[test]
    fn store_and_probe() {
        let tt = TranspositionTable::new(1).unwrap();
        let pos = Chess::default();
        let moves = pos.legal_moves();
        let m = moves[3];
        tt.store(12345, 0, pack_move(m), 42, 17, 6, Bound::Lower);
        let e = tt.probe(12345, 0).unwrap();
        assert_eq!(e.score, 42);
        assert_eq!(e.eval, 17);
        assert_eq!(e.depth, 6);
        assert_eq!(e.bound, Bound::Lower);
        assert_eq!(unpack_move(e.packed_move, &moves), Some(m));
        assert!(tt.probe(54321, 0).is_none());
    }

    #[test]
    fn mate_scores_are_ply_relative() {
        let tt = TranspositionTable::new(1).unwrap();
        let mate_in_3_from_root = crate::score::MATE - 5;
        tt.store(7, 2, 0, mate_in_3_from_root, 0, 4, Bound::Exact);
        // The same position seen at ply 4 is mated two plies later.
        assert_eq!(tt.probe(7, 4).unwrap().score, mate_in_3_from_root - 2);
        let tablebase_loss_at_ply_3 = -crate::score::TB_WIN + 3;
        tt.store(8, 3, 0, tablebase_loss_at_ply_3, 0, 4, Bound::Upper);
        assert_eq!(tt.probe(8, 1).unwrap().score, tablebase_loss_at_ply_3 - 2);
    }

    #[test]
    fn every_move_packs_uniquely() {
        let pos: Chess = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        let moves = pos.legal_moves();
        for &m in &moves {
            assert_eq!(unpack_move(pack_move(m), &moves), Some(m));
        }
    }

    #[test]
    fn resize_and_clear() {
        let mut tt = TranspositionTable::new(2).unwrap();
        tt.store(99, 0, 0, 5, 5, 3, Bound::Exact);
        tt.resize(2).unwrap();
        assert!(tt.probe(99, 0).is_some(), "same size must keep contents");
        tt.resize(4).unwrap();
        assert_eq!(tt.megabytes(), 4);
        assert!(tt.probe(99, 0).is_none());
        tt.store(99, 0, 0, 5, 5, 3, Bound::Exact);
        assert!(tt.hashfull() <= 1000);
        tt.clear();
        assert!(tt.probe(99, 0).is_none());
    }

    #[test]
    fn a_large_table_works_from_its_first_to_its_last_bucket() {
        // Large enough to be backed in the background while it is used,
        // cleared and dropped.
        let mut tt = TranspositionTable::new(512).unwrap();
        let (first, last) = (0, u64::MAX);
        tt.store(first, 0, 0, 11, 0, 3, Bound::Exact);
        tt.store(last, 0, 0, -22, 0, 4, Bound::Lower);
        assert_eq!(tt.probe(first, 0).unwrap().score, 11);
        assert_eq!(tt.probe(last, 0).unwrap().score, -22);
        tt.clear();
        assert!(tt.probe(first, 0).is_none() && tt.probe(last, 0).is_none());
        tt.store(last, 0, 0, 33, 0, 4, Bound::Upper);
        assert_eq!(tt.probe(last, 0).unwrap().score, 33);
        tt.resize(300).unwrap();
        assert!(tt.probe(last, 0).is_none());
        // The buckets are cache-line aligned, as the table's layout assumes.
        assert_eq!(tt.buckets.as_ptr() as usize % 64, 0);
    }

    #[test]
    fn a_size_that_cannot_be_allocated_keeps_the_old_table() {
        let mut tt = TranspositionTable::new(2).unwrap();
        tt.store(99, 0, 0, 5, 5, 3, Bound::Exact);
        // More than any address space: the allocation fails without an abort.
        let impossible = usize::MAX >> 20;
        assert_eq!(
            tt.resize(impossible),
            Err(AllocationError {
                megabytes: impossible
            })
        );
        assert_eq!(tt.megabytes(), 2);
        assert!(tt.probe(99, 0).is_some(), "the old contents stay");
    }

    #[test]
    fn concurrent_writers_never_mix_keys() {
        let tt = TranspositionTable::new(1).unwrap();
        std::thread::scope(|scope| {
            for thread in 0..4u64 {
                let tt = &tt;
                scope.spawn(move || {
                    let mut x = thread.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
                    for _ in 0..200_000 {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        // The score is derived from the key: a probe that
                        // returns another key's data shows up as a mismatch.
                        let score = (x % 1000) as Score;
                        tt.store(x, 0, 0, score, 0, 1, Bound::Exact);
                        if let Some(e) = tt.probe(x, 0) {
                            assert_eq!(e.score, score);
                        }
                    }
                });
            }
        });
    }
}
