// A program that links ETL sees the whole public vocabulary: models, pipelines, the engine.
@_exported import ETLStore
@_exported import ETLModel
@_exported import ETLExpression
@_exported import ETLCoreData
@_exported import ETLPipeline
@_exported import ETLEngine
