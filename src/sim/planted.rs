//! Planted bugs: known faults that can be switched into the replication core, only in the
//! library's own unit tests (`#[cfg(test)]`), to show that `isrlab check` catches them
//! (a checker that never fails proves nothing). In every other build [`active`] is a constant
//! `false` and the hooks compile away.

/// A known fault the core can be built with in tests.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PlantedBug {
    /// The leader takes its HW from its own LEO alone, ignoring the followers
    /// (against `Partition.maybeIncrementLeaderHW`, which takes the minimum over the ISR).
    HwFromLeaderAlone,
    /// A follower joins the ISR on its next fetch, before it reaches the leader's epoch start
    /// offset or the HW (against `Partition.isFollowerInSync` / `maybeExpandIsr`, which wait
    /// for both: KAFKA-7128).
    IsrBeforeCaughtUp,
    /// The controller elects the first live replica, ISR or not, with unclean election off
    /// (against `PartitionChangeBuilder.electLeader`).
    ElectionIgnoresIsr,
}

#[cfg(test)]
thread_local! {
    static PLANTED: std::cell::Cell<Option<PlantedBug>> = const { std::cell::Cell::new(None) };
}

/// Whether `bug` is switched in on this thread: always `false` outside the library's unit tests.
#[inline]
pub fn active(bug: PlantedBug) -> bool {
    #[cfg(test)]
    {
        PLANTED.with(|p| p.get() == Some(bug))
    }
    #[cfg(not(test))]
    {
        let _ = bug;
        false
    }
}

/// Switches `bug` in (or none) for the simulations run on this thread; unit tests only.
#[cfg(test)]
pub fn plant(bug: Option<PlantedBug>) {
    PLANTED.with(|p| p.set(bug));
}
