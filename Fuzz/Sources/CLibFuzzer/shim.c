// CLibFuzzer only declares libFuzzer's driver; the fuzzer runtime defines it.
