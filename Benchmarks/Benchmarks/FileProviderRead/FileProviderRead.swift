import AppexFileProvider
import AppexFileProviderHost
import AppexTesting
import Benchmark
import Foundation
import Glibc

// Issue 40: a 1 GiB file of a File Provider domain, fetched once, then read from the mount at
// ≥ 0.5× the speed of the same read from the local disk. Each iteration reads the file through
// the mount and the local copy of the same bytes beside the mount, in turn (the first
// alternating), each from a cold page cache where this process may drop it (root).

extension BenchmarkMetric {
    static let mountRead = BenchmarkMetric.custom("read through the mount (ms)")
    static let localRead = BenchmarkMetric.custom("read from the local disk (ms)")
    static let mountOverLocalSpeed = BenchmarkMetric.custom("mount speed / local speed (%)")
}

/// What the benchmark process set up: the domain, its mount, and the local file.
nonisolated(unsafe) var scratch: TemporaryDirectory?
nonisolated(unsafe) var mount: DomainMount?
nonisolated(unsafe) var localFile = ""
nonisolated(unsafe) var mountedFile = ""

let size = 1 << 30

/// A provider of one file, `big`, whose contents it copies from `source` when fetched.
final class OneFileProvider: NSObject, NSFileProviderReplicatedExtension, @unchecked Sendable {
    let source: URL

    init(source: URL) {
        self.source = source
    }

    required init(domain: NSFileProviderDomain) {
        source = URL(fileURLWithPath: "/nonexistent")
    }

    func invalidate() {}

    func item(for identifier: NSFileProviderItemIdentifier, request: NSFileProviderRequest,
              completionHandler: @escaping ((any NSFileProviderItem)?, (any Error)?) -> Void) -> Foundation.Progress {
        completionHandler(BigItem(), nil)
        return Foundation.Progress(totalUnitCount: 0)
    }

    func fetchContents(for itemIdentifier: NSFileProviderItemIdentifier, version requestedVersion: NSFileProviderItemVersion?,
                       request: NSFileProviderRequest, completionHandler: @escaping (URL?, (any NSFileProviderItem)?, (any Error)?) -> Void) -> Foundation.Progress {
        let copy = source.deletingLastPathComponent().appendingPathComponent("fetched-\(UUID().uuidString)")
        do {
            try FileManager.default.copyItem(at: source, to: copy)
            completionHandler(copy, BigItem(), nil)
        } catch {
            completionHandler(nil, nil, error)
        }
        return Foundation.Progress(totalUnitCount: 0)
    }

    func createItem(basedOn itemTemplate: any NSFileProviderItem, fields: NSFileProviderItemFields, contents url: URL?, options: NSFileProviderCreateItemOptions,
                    request: NSFileProviderRequest, completionHandler: @escaping ((any NSFileProviderItem)?, NSFileProviderItemFields, Bool, (any Error)?) -> Void) -> Foundation.Progress {
        completionHandler(nil, [], false, NSFileProviderError(.cannotSynchronize))
        return Foundation.Progress(totalUnitCount: 0)
    }

    func modifyItem(_ item: any NSFileProviderItem, baseVersion version: NSFileProviderItemVersion, changedFields: NSFileProviderItemFields, contents newContents: URL?,
                    options: NSFileProviderModifyItemOptions, request: NSFileProviderRequest,
                    completionHandler: @escaping ((any NSFileProviderItem)?, NSFileProviderItemFields, Bool, (any Error)?) -> Void) -> Foundation.Progress {
        completionHandler(nil, [], false, NSFileProviderError(.cannotSynchronize))
        return Foundation.Progress(totalUnitCount: 0)
    }

    func deleteItem(identifier: NSFileProviderItemIdentifier, baseVersion version: NSFileProviderItemVersion, options: NSFileProviderDeleteItemOptions,
                    request: NSFileProviderRequest, completionHandler: @escaping ((any Error)?) -> Void) -> Foundation.Progress {
        completionHandler(NSFileProviderError(.deletionRejected))
        return Foundation.Progress(totalUnitCount: 0)
    }

    func enumerator(for containerItemIdentifier: NSFileProviderItemIdentifier, request: NSFileProviderRequest) throws -> any NSFileProviderEnumerator {
        OneItemEnumerator()
    }
}

final class OneItemEnumerator: NSObject, NSFileProviderEnumerator {
    func invalidate() {}

    func enumerateItems(for observer: any NSFileProviderEnumerationObserver, startingAt page: NSFileProviderPage) {
        observer.didEnumerate([BigItem()])
        observer.finishEnumerating(upTo: nil)
    }
}

final class BigItem: NSObject, NSFileProviderItem {
    var itemIdentifier: NSFileProviderItemIdentifier { NSFileProviderItemIdentifier("big") }
    var parentItemIdentifier: NSFileProviderItemIdentifier { .rootContainer }
    var filename: String { "big" }
    var documentSize: NSNumber? { NSNumber(value: size) }
}

/// Reads the file at `path` to its end in pieces of 1 MiB; returns the milliseconds taken.
func readWhole(_ path: String) throws -> Double {
    dropPageCache()
    let start = ContinuousClock.now
    let file = open(path, O_RDONLY | O_CLOEXEC)
    guard file >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    defer { close(file) }
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 4096)
    defer { buffer.deallocate() }
    var total = 0
    while true {
        let count = read(file, buffer, 1 << 20)
        guard count > 0 else { break }
        total += count
    }
    guard total == size else { throw POSIXError(.EIO) }
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
}

/// Drops the kernel's clean cached pages, where this process may (root), so each read starts cold.
func dropPageCache() {
    sync()
    let control = open("/proc/sys/vm/drop_caches", O_WRONLY)
    guard control >= 0 else { return }
    _ = write(control, "3", 1)
    close(control)
}

let benchmarks: @Sendable () -> Void = {
    Benchmark(
        "FileProvider-read-1-GiB-mount-over-local-disk",
        configuration: .init(metrics: [.mountRead, .localRead, .mountOverLocalSpeed], timeUnits: .milliseconds,
                             units: [.mountRead: .count, .localRead: .count, .mountOverLocalSpeed: .count],
                             warmupIterations: 1, maxDuration: .seconds(60), maxIterations: 10)
    ) { benchmark in
        var took: [Bool: Double] = [:]
        for throughMount in benchmark.currentIteration % 2 == 0 ? [true, false] : [false, true] {
            took[throughMount] = try readWhole(throughMount ? mountedFile : localFile)
        }
        benchmark.measurement(.mountRead, Int(took[true]!))
        benchmark.measurement(.localRead, Int(took[false]!))
        benchmark.measurement(.mountOverLocalSpeed, Int(took[false]! * 100 / max(took[true]!, 1)))
    } setup: {
        let folder = try TemporaryDirectory(prefix: "appex-bench-fileprovider")
        localFile = folder.url.appendingPathComponent("source").path
        let random = open("/dev/urandom", O_RDONLY)
        let output = open(localFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 4096)
        for _ in 0..<(size >> 20) {
            _ = read(random, buffer, 1 << 20)
            _ = write(output, buffer, 1 << 20)
        }
        buffer.deallocate()
        close(random)
        close(output)
        let provider = InProcessProvider(OneFileProvider(source: folder.url.appendingPathComponent("source")), domain: NSFileProviderDomainIdentifier("big"))
        mount = try DomainMount(provider: provider, replica: folder.url.appendingPathComponent("replica"),
                                mountPoint: folder.url.appendingPathComponent("mount"), report: { _ in })
        mountedFile = folder.url.appendingPathComponent("mount/big").path
        _ = try readWhole(mountedFile) // fetched once, here
        scratch = consume folder
    } teardown: {
        mount?.stop()
        mount = nil
        scratch = nil
    }
}
