import ETLCommandLine

// `etl` itself registers no policies; a program of your own that links ETLCommandLine
// can (see Examples/PostSections).
ETLCommand.main(policies: [:])
