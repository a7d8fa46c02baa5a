import ETLModel
import ETLExpression

extension PipelineSpec {
    /// This pipeline for a source store laid out as `found` (`SourceSchemaCheck.layout(of:)`),
    /// when the pipeline does not write the source's `"layout"`: a Core Data store is read
    /// as one, and a destination without a `"layout"` of its own follows the source. A
    /// written layout is kept (the store is then checked against it).
    public func reading(sourceLayout found: LayoutKind) throws -> PipelineSpec {
        guard source.layoutFromStore else { return self }
        var spec = self
        spec.source.layout = found
        if destination.layoutCursor == nil {
            spec.destination.layout = found
            if found != .coredata {
                if let template = destination.templateCursor { throw template.error(Self.templateNeedsCoreData) }
                if destination.newStoreUUID { throw destination.cursor.error(Self.newStoreUUIDNeedsCoreData) }
            }
        }
        return spec
    }
}
