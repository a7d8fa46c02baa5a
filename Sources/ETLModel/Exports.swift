// Model files, bundles and pipelines are JSON documents with positions: whoever reads a
// model reads its errors (`DocumentError`) too.
@_exported import ETLDocument
