public enum SampleApps {}
