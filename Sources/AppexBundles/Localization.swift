import Foundation

/// Picks a localised string from `InfoPlist.strings` tables for a list of preferred languages.
public enum Localization {
    /// The value of `key` in the first table that matches one of `languages`, trying each
    /// language, then its base language (`pt-BR`, then `pt`), then English and `Base`.
    public static func string(_ key: String, in tables: [String: [String: String]], languages: [String]) -> String? {
        for language in candidates(for: languages) {
            if let value = tables[language]?[key] { return value }
        }
        return nil
    }

    /// The table names to try, in order, for `languages`.
    public static func candidates(for languages: [String]) -> [String] {
        var result: [String] = []
        func add(_ name: String) { if !result.contains(name) { result.append(name) } }
        for language in languages {
            add(language)
            let base = language.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map(String.init) ?? language
            add(language.replacingOccurrences(of: "_", with: "-"))
            add(base)
        }
        for fallback in ["en", "English", "Base"] { add(fallback) }
        return result
    }
}

/// The user's preferred languages, read as gettext does from the environment.
public enum PreferredLanguages {
    /// `LANGUAGE` (a colon-separated list), then `LC_ALL`, `LC_MESSAGES` and `LANG`.
    public static var current: [String] {
        parse(environment: ProcessEnvironment.variables)
    }

    /// The languages an environment names, such as `de_DE.UTF-8` → `de-DE`.
    public static func parse(environment: [String: String]) -> [String] {
        var names: [String] = []
        if let list = environment["LANGUAGE"], !list.isEmpty {
            names += list.split(separator: ":").map(String.init)
        }
        for key in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = environment[key], !value.isEmpty {
                names.append(value)
                break
            }
        }
        return names.compactMap(normalize).reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }

    /// `de_DE.UTF-8@euro` → `de-DE`; `C` and `POSIX` name no language.
    static func normalize(_ locale: String) -> String? {
        let name = locale.split(separator: ".").first.map(String.init) ?? locale
        let bare = name.split(separator: "@").first.map(String.init) ?? name
        guard !bare.isEmpty, bare != "C", bare != "POSIX" else { return nil }
        return bare.replacingOccurrences(of: "_", with: "-")
    }
}
