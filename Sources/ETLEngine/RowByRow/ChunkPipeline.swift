import Foundation
import Dispatch

/// produce → transform on N workers → consume in order, with a bound on chunks in flight.
///
/// - `produce` runs on one producer thread, sequentially, until it returns nil.
/// - `transform` runs on `workers` worker threads, any order.
/// - `consume` runs on the calling thread, strictly in production order, so the loader
///   hands out destination keys in source order whatever the number of workers: this is
///   what makes output identical with 1 or N workers.
/// - At most `maxInFlight` chunks exist between production and the end of consumption
///   (back-pressure: the producer waits), so memory is bounded by
///   `maxInFlight × chunkSize` rows, never by the store.
///
/// The first error anywhere stops all sides; `run` waits for every thread to finish
/// before it returns or throws, so no thread outlives the connections it uses.
final class ChunkPipeline<Input, Output>: @unchecked Sendable {
    // All mutable state is guarded by `condition`.
    private let condition = NSCondition()
    private var pending: [(Int, Input)] = []
    private var results: [Int: Output] = [:]
    private var inFlight = 0
    private var produced = 0
    private var producerDone = false
    private var failure: Error?
    private var stopped = false

    private let workers: Int
    private let maxInFlight: Int

    private init(workers: Int, maxInFlight: Int) {
        self.workers = max(1, workers)
        self.maxInFlight = max(1, maxInFlight)
    }

    static func run(workers: Int, maxInFlight: Int,
                    produce: @escaping () throws -> Input?,
                    transform: @escaping (Input) throws -> Output,
                    consume: (Output) throws -> Void) throws {
        let pipeline = ChunkPipeline(workers: workers, maxInFlight: maxInFlight)
        try pipeline.execute(produce: produce, transform: transform, consume: consume)
    }

    private func fail(_ error: Error) {
        condition.lock()
        if failure == nil { failure = error }
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func execute(produce: @escaping () throws -> Input?,
                         transform: @escaping (Input) throws -> Output,
                         consume: (Output) throws -> Void) throws {
        let group = DispatchGroup()
        let producer = UnsafeTransfer(produce)
        let transformer = UnsafeTransfer(transform)

        group.enter()
        Thread.detachNewThread { [self] in
            defer { group.leave() }
            while true {
                condition.lock()
                while inFlight >= maxInFlight && !stopped { condition.wait() }
                if stopped { condition.unlock(); return }
                condition.unlock()
                let input: Input?
                do { input = try producer.value() } catch { fail(error); return }
                condition.lock()
                guard let input else {
                    producerDone = true
                    condition.broadcast()
                    condition.unlock()
                    return
                }
                pending.append((produced, UnsafeTransfer(input).value))
                produced += 1
                inFlight += 1
                condition.broadcast()
                condition.unlock()
            }
        }

        for _ in 0..<workers {
            group.enter()
            Thread.detachNewThread { [self] in
                defer { group.leave() }
                while true {
                    condition.lock()
                    while pending.isEmpty && !producerDone && !stopped { condition.wait() }
                    if stopped || pending.isEmpty { condition.unlock(); return }
                    let (sequence, input) = pending.removeFirst()
                    condition.unlock()
                    do {
                        let output = try transformer.value(input)
                        condition.lock()
                        results[sequence] = output
                        condition.broadcast()
                        condition.unlock()
                    } catch {
                        fail(error)
                        return
                    }
                }
            }
        }

        var next = 0
        var consumeError: Error?
        while true {
            condition.lock()
            while results[next] == nil && !stopped && !(producerDone && next == produced) { condition.wait() }
            if stopped || (producerDone && next == produced) { condition.unlock(); break }
            let output = results.removeValue(forKey: next)!
            condition.unlock()
            do {
                try consume(output)
            } catch {
                consumeError = error
                fail(error)
                break
            }
            condition.lock()
            inFlight -= 1
            next += 1
            condition.broadcast()
            condition.unlock()
        }
        group.wait()
        if let error = consumeError ?? failure { throw error }
    }
}

/// Carries a value across threads where the pipeline's own locking makes it safe.
struct UnsafeTransfer<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
