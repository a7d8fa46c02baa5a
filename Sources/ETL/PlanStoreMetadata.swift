import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData
import ETLPipeline

extension Plan {
    /// A plan shared by the Core Data stores of one kind (`PlanCache`) made the result's
    /// metadata from the first store's: the result keeps its own source's UUID and its app's
    /// own metadata keys instead, as `Planner.finalLayout` would have made them for it.
    /// Nothing else of the plan depends on these.
    /// `carried`: the store's metadata (`CoreDataMetadata.read`), nil when it has no `Z_METADATA`.
    mutating func adoptMetadata(_ carried: CoreDataMetadata?, newStoreUUID: Bool) {
        func adopt(_ layout: any StoreLayout) -> any StoreLayout {
            if var coreData = layout as? CoreDataLayout {
                coreData.carried = carried
                coreData.storeUUID = newStoreUUID ? nil : carried?.storeUUID
                return coreData
            }
            if let templated = layout as? TemplatedLayout, templated.base is CoreDataLayout {
                return TemplatedLayout(base: adopt(templated.base), schema: templated.schema)
            }
            return layout
        }
        if let last = steps.indices.last { steps[last].destinationLayout = adopt(steps[last].destinationLayout) }
        if let fused = fusedSteps, let last = fused.indices.last {
            fusedSteps?[last].destinationLayout = adopt(fused[last].destinationLayout)
        }
    }
}
