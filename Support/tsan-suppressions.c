// ThreadSanitizer's built-in suppressions for every program Support/sanitize builds: it links
// this file into each (appexd, appex-transfers, the extensions, the CLI, the tests), so that an
// extension whose sandbox can't read a suppressions file gets them too.
//
// Each entry is a false report, shown to be one; docs/reliability.md says how.

// NIO's ByteBuffer grows its storage in place (reallocStorage) only once the storage is
// uniquely referenced. Reading a buffer on one thread and then letting it go, after which an
// event loop finds the storage unique and grows it, is ordered by the storage's reference
// count. That count lives in Swift's runtime, which is not instrumented, so ThreadSanitizer
// sees the read and the grow as unordered. It happens whenever a download's chunk is written
// to its file off the event loop that read it: NIO reuses its receive buffer once no one else
// holds it. AppexTransferEngineTests.ThreadSanitizerSuppressionTests makes it happen every time.
const char *__tsan_default_suppressions(void) {
    return "race_top:NIOCore10ByteBufferV8_StorageC07reallocD08capacityys6UInt32V_tF\n";
}
