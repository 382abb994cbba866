import Foundation

/// A readers-writer lock (pthread_rwlock): many shared holders or one exclusive holder.
final class SharedGate: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    init() {
        lock = .allocate(capacity: 1)
        pthread_rwlock_init(lock, nil)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    func lockShared() { pthread_rwlock_rdlock(lock) }
    func lockExclusive() { pthread_rwlock_wrlock(lock) }
    func tryLockExclusive() -> Bool { pthread_rwlock_trywrlock(lock) == 0 }
    func unlock() { pthread_rwlock_unlock(lock) }
}
