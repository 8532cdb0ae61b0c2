import AppexBrowserTesting
import AppexSystem
import Testing

extension Trait where Self == ConditionTrait {
    /// A suite that drives a real Chromium: it needs one installed, and runs only in a build
    /// without a sanitizer, which would instrument none of the browser and slow the rest. The
    /// native host's own code runs under the sanitizers in `NativeHostTests`.
    static var needsChromium: Self {
        .enabled(if: Chromium.executable != nil && !Sanitizers.areActive, "needs Chromium (.ci/run installs it), and no sanitizer")
    }

    /// A suite that drives a real Firefox, likewise.
    static var needsFirefox: Self {
        .enabled(if: Firefox.executable != nil && !Sanitizers.areActive, "needs Firefox (.ci/run installs firefox-esr), and no sanitizer")
    }
}
