import Foundation
import Glibc

/// An executable the launcher can start by loading it into a process forked from one that
/// has already started the Swift runtime, rather than by spawning it (docs/zygote.md): a
/// position-independent program linked to the launcher's shared Swift runtime, whose `main`
/// its symbol table names, and linked to AppexKit only if the launcher has loaded appexd's.
///
/// ```swift
/// let file = try FileDescriptor.open(path)
/// let loadable = try LoadableExecutable(file, path: path, runtime: launcherRuntime, hasAppexKit: true)
/// ```
public struct LoadableExecutable: Sendable, Hashable {
    /// Where its `main` is, relative to the address it is loaded at.
    public var mainAddress: UInt64
    /// Whether DF_1_PIE, which glibc's `dlopen` refuses, is still set: the copy to be loaded
    /// must have it cleared (``clearPIEFlag(in:)``), as an install does.
    public var isFlaggedPIE: Bool

    /// Why an executable must be spawned instead.
    public enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// It is not a well-formed ELF executable for this machine.
        case malformed(String)
        /// It can only be loaded at a fixed address (ET_EXEC).
        case notPositionIndependent
        /// It is linked statically: it has no loader, or carries its own Swift runtime.
        case carriesItsOwnRuntime
        /// It is linked to a Swift runtime other than the launcher's.
        case linksAnotherRuntime(String)
        /// Its symbol table is gone, or names no `main`.
        case noMain(String)
        /// It carries a sanitizer's runtime (AddressSanitizer's, ThreadSanitizer's), which must
        /// be the only one in its process and starts itself from the program's own start.
        case carriesASanitizer(String)
        /// It is linked to AppexKit, and the launcher has loaded none.
        case needsAppexKit
        /// It carries AppexKit's code in itself, and the launcher has loaded the shared
        /// AppexKit: the runtime would find two of each of AppexKit's types by name.
        case carriesItsOwnAppexKit

        public var description: String {
            switch self {
            case .malformed(let reason): "it is not an ELF executable the launcher can read: \(reason)"
            case .notPositionIndependent: "it is not position-independent (ET_EXEC), so it can't be loaded beside the launcher's libraries"
            case .carriesItsOwnRuntime: "it is linked statically and carries its own Swift runtime, which must never share a process with another"
            case .linksAnotherRuntime(let detail): "it is linked to another Swift runtime than the launcher's: \(detail)"
            case .noMain(let reason): "the launcher can't find its main: \(reason)"
            case .carriesASanitizer(let runtime): "it is built with a sanitizer (it defines \(runtime)), whose runtime must be alone in its process"
            case .needsAppexKit: "it is linked to \(LoadableExecutable.appexKitLibrary), which the launcher has not loaded"
            case .carriesItsOwnAppexKit: "it carries AppexKit's code itself, beside the shared AppexKit the launcher has loaded"
            }
        }
    }

    /// The functions that start a sanitizer's runtime linked into a program.
    static let sanitizerRuntimes = ["__asan_init", "__tsan_init", "__msan_init", "__hwasan_init"]

    /// The name of the Swift runtime's core library, which every Swift program links.
    public static let runtimeLibrary = "libswiftCore.so"

    /// The name of the shared AppexKit (the AppexKit library product), which an extension
    /// linked to it runs with appexd's copy of, forked or spawned (docs/zygote.md).
    public static let appexKitLibrary = "libAppexKit.so"

    /// AppexKit's `NSExtensionMain()`: a program that defines it carries AppexKit's code itself.
    public static let appexKitEntry = "$s8AppexKit15NSExtensionMains5NeverOyF"

    /// Whether the executable open at `file` is linked to the shared AppexKit; false for one
    /// that can't be read as a dynamically linked ELF file.
    public static func needsAppexKit(_ file: FileDescriptor) -> Bool {
        guard let elf = try? ELFFile(reading: file), let entries = try? elf.dynamicEntries(),
              let needed = try? elf.dynamicStrings(tagged: ELFFile.tagNeeded, in: entries) else { return false }
        return needed.contains(appexKitLibrary)
    }

    /// Inspects the executable open at `file`, found at `path` (for `$ORIGIN` in its run path),
    /// against `runtime`, the launcher's `libswiftCore.so`: the library its run path finds
    /// first must be that file. One linked to AppexKit can be loaded only if the launcher
    /// `hasAppexKit`: the loader then takes the launcher's for it, found by its name; and one
    /// that carries AppexKit's code itself, only if it has not.
    public init(_ file: FileDescriptor, path: String, runtime: FileIdentity, hasAppexKit: Bool) throws(Refusal) {
        let elf: ELFFile
        let entries: [ELFFile.DynamicEntry]
        let needed: [String]
        let runPath: [String]
        do {
            elf = try ELFFile(reading: file)
            entries = try elf.dynamicEntries()
            needed = try elf.dynamicStrings(tagged: ELFFile.tagNeeded, in: entries)
            runPath = try elf.dynamicStrings(tagged: ELFFile.tagRunPath, in: entries)
        } catch {
            throw .malformed(error.reason)
        }
        guard elf.type == ELFFile.typeShared else {
            throw elf.type == ELFFile.typeExecutable ? .notPositionIndependent : .malformed("it is not an executable (e_type \(elf.type))")
        }
        guard elf.hasInterpreter, needed.contains(Self.runtimeLibrary) else { throw .carriesItsOwnRuntime }
        let folders = Self.folders(of: runPath, origin: path)
        guard let (found, identity) = Self.find(Self.runtimeLibrary, in: folders) else {
            throw .linksAnotherRuntime("its run path (\(folders.joined(separator: ":"))) holds no \(Self.runtimeLibrary)")
        }
        guard identity == runtime else { throw .linksAnotherRuntime("its run path finds \(found)") }
        if needed.contains(Self.appexKitLibrary) && !hasAppexKit { throw .needsAppexKit }
        let functions: [String: UInt64]
        do {
            functions = try elf.definedFunctions(named: Set(["main", Self.appexKitEntry] + Self.sanitizerRuntimes))
        } catch {
            throw .noMain(error.reason)
        }
        if let runtime = Self.sanitizerRuntimes.first(where: { functions[$0] != nil }) { throw .carriesASanitizer(runtime) }
        guard let main = functions["main"] else { throw .noMain("its symbol table names no main") }
        if hasAppexKit && functions[Self.appexKitEntry] != nil { throw .carriesItsOwnAppexKit }
        mainAddress = main
        isFlaggedPIE = entries.contains { $0.tag == ELFFile.tagFlags1 && $0.value & ELFFile.flagPIE != 0 }
    }

    /// The Swift runtime (`libswiftCore.so`) that the program at `path`, linked to it, loads
    /// (as its run path finds it), such as the launcher's; nil if it can't be read or names none.
    public static func runtime(of path: String) -> (path: String, identity: FileIdentity)? {
        guard let file = try? FileDescriptor.open(path) else { return nil }
        defer { file.close() }
        guard let elf = try? ELFFile(reading: file), let entries = try? elf.dynamicEntries(),
              let runPath = try? elf.dynamicStrings(tagged: ELFFile.tagRunPath, in: entries),
              let (found, identity) = find(runtimeLibrary, in: folders(of: runPath, origin: path)) else { return nil }
        return (found, identity)
    }

    /// The folders of a run path, with `$ORIGIN` the folder of the file at `origin`.
    private static func folders(of runPath: [String], origin path: String) -> [String] {
        let origin = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return runPath.flatMap { $0.split(separator: ":").map(String.init) }.map {
            $0.replacingOccurrences(of: "${ORIGIN}", with: origin).replacingOccurrences(of: "$ORIGIN", with: origin)
        }
    }

    /// The first of `folders` that holds `library`, and that file.
    private static func find(_ library: String, in folders: [String]) -> (String, FileIdentity)? {
        folders.lazy.map { "\($0)/\(library)" }.compactMap { path in FileIdentity(path: path).map { (path, $0) } }.first
    }

    /// Clears DF_1_PIE in the executable open for reading and writing at `copy`, a copy that
    /// is to be loaded, so that `dlopen` takes it: it still runs on its own, since neither the
    /// kernel nor the loader heeds the flag when they start a program. Returns whether it was
    /// set; a file that is no ELF executable, or lacks the flag, is left as it is.
    @discardableResult
    public static func clearPIEFlag(in copy: FileDescriptor) throws(SystemError) -> Bool {
        guard let elf = try? ELFFile(reading: copy), elf.type == ELFFile.typeShared, elf.hasInterpreter,
              let entry = (try? elf.dynamicEntries())?.first(where: { $0.tag == ELFFile.tagFlags1 }),
              entry.value & ELFFile.flagPIE != 0 else { return false }
        var value = (entry.value & ~ELFFile.flagPIE).littleEndian
        let raw = copy.rawValue
        let written = try retrying("pwrite") { pwrite(raw, &value, 8, off_t(entry.fileOffset + 8)) }
        guard written == 8 else { throw SystemError("pwrite", errno: EIO) }
        return true
    }
}
