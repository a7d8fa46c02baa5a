import ETLModel
import ETLExpression
import ETLDocument

/// A bundle pipeline's hops from a store at a later version than the target down to it:
/// each the pipeline's own step from that version (`{ "from": "V3", "to": "V2",
/// "mappingModel": "V3toV2.xcmappingmodel" }`, or mappings written out), as Core Data
/// migrates with a downgrade mapping model.
///
/// None is inferred or found in a folder: a store at a later version than a pipeline's
/// target is most often one a newer app wrote, which an upgrade pipeline must not take
/// back (its newer data would go), so going down is what a pipeline says, hop by hop.
enum DowngradeHops {
    static func hops(from start: Int, to target: Int, explicit: [Int: (to: Int, step: StepSpec)], names: [String],
                     spec: PipelineSpec) throws -> [(from: Int, to: Int, step: StepSpec?)] {
        var hops: [(from: Int, to: Int, step: StepSpec?)] = []
        var k = start
        while k > target {
            guard let (to, step) = explicit[k], to < k else {
                let reached = k == start ? "" : " (the steps down from \(names[start]) reach \(names[k]))"
                throw spec.destination.cursor.error("the source store is at version \(names[start]), later than the target \(names[target])\(reached): "
                    + "etl downgrades only through a step the pipeline names for each hop down, and none starts from \(names[k]). "
                    + "Add one, such as " + PipelineWriter.json(.members([PipelineFormat.Step.from: .string(names[k]), PipelineFormat.Step.to: .string(names[target]),
                                                                        PipelineFormat.Step.mappingModel: .string("\(names[k])to\(names[target]).xcmappingmodel")])) + ", "
                    + "or make \(names[start]) (or a later version) the destination's \"version\"")
            }
            hops.append((k, to, step))
            k = to
        }
        return hops
    }
}
