@_exported import ETLEngine
