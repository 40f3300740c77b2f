//! Producer ids (Kafka's `ProducerIdControlManager`): every producer's `InitProducerId` gets an
//! id never handed out before.

use super::QuorumController;

/// The first producer id isrlab hands out (Kafka's first block starts at 0; isrlab keeps
/// producer ids apart from the small numbers of broker ids and indexes in the event log).
pub const FIRST_PRODUCER_ID: i64 = 1000;

impl QuorumController {
    /// A producer id never handed out before, for a producer's `InitProducerId` (its start,
    /// or `restart-producer`). Kafka's controller keeps the last id given out
    /// (`ProducerIdControlManager`) and hands brokers blocks of 1000 ids, from which each
    /// broker's `ProducerIdManager.generateProducerId` serves its `InitProducerId` requests
    /// (`TransactionCoordinator.handleInitProducerId`). isrlab serves them from one counter,
    /// so ids are unique and rise in the order producers asked, whichever broker answers.
    pub fn allocate_producer_id(&mut self) -> i64 {
        let id = self.next_producer_id;
        self.next_producer_id += 1;
        id
    }
}
