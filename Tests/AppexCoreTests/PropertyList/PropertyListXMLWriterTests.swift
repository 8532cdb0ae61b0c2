@testable import AppexCore
import Foundation
import Testing

/// ``PropertyListValue/xmlData()`` writes what Foundation's `PropertyListSerialization`
/// writes, byte for byte, and also an empty array, which Foundation refuses in a program
/// linked with `-static-stdlib`, as appexd and extensions are (the fault extension checks
/// that there, `ExtensionTypesTests`).
struct PropertyListXMLWriterTests {
    static let sample: PropertyListValue = .dictionary([
        "real": .real(0.1), "whole": .real(3), "big": .real(1e300), "infinite": .real(-.infinity),
        "integer": .integer(-42), "yes": .boolean(true), "no": .boolean(false),
        "text": .string("a <b> & \"c\" 'd' é 🙂"),
        "date": .date(Date(timeIntervalSince1970: 1_000_000_000)),
        "short": .data(Data([1, 2, 3])),
        "long": .data(Data((0..<300).map { UInt8($0 % 256) })),
        "nested": .dictionary(["list": .array([.string("x"), .integer(1), .data(Data(repeating: 7, count: 200))]), "empty": .dictionary([:])]),
    ])

    @Test func whatItWritesIsWhatFoundationWrites() throws {
        let foundation = try PropertyListSerialization.data(fromPropertyList: Self.sample.foundationObject, format: .xml, options: 0)
        let written = try Self.sample.xmlData()
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: foundation, as: UTF8.self))
    }

    @Test func dataNestedDeepIsWrittenAsFoundationWritesIt() throws {
        // Foundation stops indenting data's lines at 8 tabs; a width that went on shrinking
        // would reach zero at 10 levels, and the writer trapped there.
        var value = PropertyListValue.data(Data((0..<200).map { UInt8($0) }))
        for _ in 0..<12 { value = .array([value]) }
        let foundation = try PropertyListSerialization.data(fromPropertyList: value.foundationObject, format: .xml, options: 0)
        #expect(String(decoding: try value.xmlData(), as: UTF8.self) == String(decoding: foundation, as: UTF8.self))
    }

    @Test func anEmptyArrayIsWrittenAndReadBack() throws {
        let value: PropertyListValue = .dictionary(["none": .array([]), "some": .array([.array([])])])
        let written = try value.xmlData()
        #expect(String(decoding: written, as: UTF8.self).contains("<key>none</key>\n\t<array/>"))
        #expect(try PropertyListValue(decoding: written) == value)
    }
}
