// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Hyper, STATE_ADDRESS} from "./Common.sol";
import {SubtensorState} from "./SubtensorState.sol";

/// Subnet precompile facade (0x803). Getters revert "SubnetNotExists" for an unknown netuid.
/// Setters are allowed for the subnet owner or the devnet admin ("NotSubnetOwner" otherwise);
/// registerNetwork is not supported on the devnet (subnets are created by the admin).
contract Subnet {
    SubtensorState internal constant S = SubtensorState(STATE_ADDRESS);

    function _get(uint16 netuid, Hyper p) private view returns (uint256) {
        return S.hyperparameter(netuid, p);
    }

    function _set(uint16 netuid, Hyper p, uint256 value) private {
        S.subnetSetHyperparameter(msg.sender, netuid, p, value);
    }

    // ----- registration (not supported) -----

    function registerNetwork(bytes32) external payable {
        revert("NotSupportedOnDevnet");
    }

    function registerNetwork(
        bytes32,
        string calldata,
        string calldata,
        string calldata,
        string calldata,
        string calldata,
        string calldata,
        string calldata
    ) external payable {
        revert("NotSupportedOnDevnet");
    }

    function registerNetwork(
        bytes32,
        string calldata,
        string calldata,
        string calldata,
        string calldata,
        string calldata,
        string calldata,
        string calldata,
        string calldata
    ) external payable {
        revert("NotSupportedOnDevnet");
    }

    // ----- getters -----

    function getWeightsVersionKey(uint16 netuid) external view returns (uint64) {
        return uint64(_get(netuid, Hyper.WeightsVersionKey));
    }

    function getWeightsSetRateLimit(uint16 netuid) external view returns (uint64) {
        return uint64(_get(netuid, Hyper.WeightsSetRateLimit));
    }

    function getMinAllowedWeights(uint16 netuid) external view returns (uint16) {
        return uint16(_get(netuid, Hyper.MinAllowedWeights));
    }

    function getMaxWeightLimit(uint16 netuid) external view returns (uint16) {
        return uint16(_get(netuid, Hyper.MaxWeightLimit));
    }

    function getCommitRevealWeightsEnabled(uint16 netuid) external view returns (bool) {
        return _get(netuid, Hyper.CommitRevealEnabled) != 0;
    }

    function getCommitRevealWeightsInterval(uint16 netuid) external view returns (uint64) {
        return uint64(_get(netuid, Hyper.CommitRevealInterval));
    }

    function getImmunityPeriod(uint16 netuid) external view returns (uint16) {
        return uint16(_get(netuid, Hyper.ImmunityPeriod));
    }

    function getActivityCutoff(uint16 netuid) external view returns (uint16) {
        return uint16(_get(netuid, Hyper.ActivityCutoff));
    }

    function getActivityCutoffFactor(uint16 netuid) external view returns (uint32) {
        return uint32(_get(netuid, Hyper.ActivityCutoffFactor));
    }

    function getKappa(uint16 netuid) external view returns (uint16) {
        return uint16(_get(netuid, Hyper.Kappa));
    }

    function getRho(uint16 netuid) external view returns (uint16) {
        return uint16(_get(netuid, Hyper.Rho));
    }

    function getAdjustmentAlpha(uint16 netuid) external view returns (uint64) {
        return uint64(_get(netuid, Hyper.AdjustmentAlpha));
    }

    function getBondsMovingAverage(uint16 netuid) external view returns (uint64) {
        return uint64(_get(netuid, Hyper.BondsMovingAverage));
    }

    function getBondsResetEnabled(uint16 netuid) external view returns (bool) {
        return _get(netuid, Hyper.BondsResetEnabled) != 0;
    }

    function getDifficulty(uint16 netuid) external view returns (uint64) {
        return uint64(_get(netuid, Hyper.Difficulty));
    }

    function getMinDifficulty(uint16 netuid) external view returns (uint64) {
        return uint64(_get(netuid, Hyper.MinDifficulty));
    }

    function getMaxDifficulty(uint16 netuid) external view returns (uint64) {
        return uint64(_get(netuid, Hyper.MaxDifficulty));
    }

    function getMinBurn(uint16 netuid) external view returns (uint64) {
        return uint64(_get(netuid, Hyper.MinBurn));
    }

    function getMaxBurn(uint16 netuid) external view returns (uint64) {
        return uint64(_get(netuid, Hyper.MaxBurn));
    }

    function getLiquidAlphaEnabled(uint16 netuid) external view returns (bool) {
        return _get(netuid, Hyper.LiquidAlphaEnabled) != 0;
    }

    function getYuma3Enabled(uint16 netuid) external view returns (bool) {
        return _get(netuid, Hyper.Yuma3Enabled) != 0;
    }

    function getNetworkRegistrationAllowed(uint16 netuid) external view returns (bool) {
        return _get(netuid, Hyper.NetworkRegistrationAllowed) != 0;
    }

    function getNetworkPowRegistrationAllowed(uint16 netuid) external view returns (bool) {
        return _get(netuid, Hyper.NetworkPowRegistrationAllowed) != 0;
    }

    function getAlphaSigmoidSteepness(uint16 netuid) external view returns (uint16) {
        return uint16(_get(netuid, Hyper.AlphaSigmoidSteepness));
    }

    function getAlphaValues(uint16 netuid) external view returns (uint16, uint16) {
        return (uint16(_get(netuid, Hyper.AlphaLow)), uint16(_get(netuid, Hyper.AlphaHigh)));
    }

    // ----- setters -----

    function setWeightsVersionKey(uint16 netuid, uint64 weightsVersionKey) external payable {
        _set(netuid, Hyper.WeightsVersionKey, weightsVersionKey);
    }

    function setWeightsSetRateLimit(uint16 netuid, uint64 weightsSetRateLimit) external payable {
        _set(netuid, Hyper.WeightsSetRateLimit, weightsSetRateLimit);
    }

    function setMinAllowedWeights(uint16 netuid, uint16 minAllowedWeights) external payable {
        _set(netuid, Hyper.MinAllowedWeights, minAllowedWeights);
    }

    function setCommitRevealWeightsEnabled(uint16 netuid, bool commitRevealWeightsEnabled) external payable {
        _set(netuid, Hyper.CommitRevealEnabled, commitRevealWeightsEnabled ? 1 : 0);
    }

    function setCommitRevealWeightsInterval(uint16 netuid, uint64 commitRevealWeightsInterval) external payable {
        _set(netuid, Hyper.CommitRevealInterval, commitRevealWeightsInterval);
    }

    function setImmunityPeriod(uint16 netuid, uint16 immunityPeriod) external payable {
        _set(netuid, Hyper.ImmunityPeriod, immunityPeriod);
    }

    function setActivityCutoff(uint16 netuid, uint16 activityCutoff) external payable {
        _set(netuid, Hyper.ActivityCutoff, activityCutoff);
    }

    function setActivityCutoffFactor(uint16 netuid, uint32 factorMilli) external payable {
        _set(netuid, Hyper.ActivityCutoffFactor, factorMilli);
    }

    function setKappa(uint16 netuid, uint16 kappa) external payable {
        _set(netuid, Hyper.Kappa, kappa);
    }

    function setRho(uint16 netuid, uint16 rho) external payable {
        _set(netuid, Hyper.Rho, rho);
    }

    function setAdjustmentAlpha(uint16 netuid, uint64 adjustmentAlpha) external payable {
        _set(netuid, Hyper.AdjustmentAlpha, adjustmentAlpha);
    }

    function setBondsMovingAverage(uint16 netuid, uint64 bondsMovingAverage) external payable {
        _set(netuid, Hyper.BondsMovingAverage, bondsMovingAverage);
    }

    function setBondsResetEnabled(uint16 netuid, bool bondsResetEnabled) external payable {
        _set(netuid, Hyper.BondsResetEnabled, bondsResetEnabled ? 1 : 0);
    }

    function setDifficulty(uint16 netuid, uint64 difficulty) external payable {
        _set(netuid, Hyper.Difficulty, difficulty);
    }

    function setMinDifficulty(uint16 netuid, uint64 minDifficulty) external payable {
        _set(netuid, Hyper.MinDifficulty, minDifficulty);
    }

    function setMaxDifficulty(uint16 netuid, uint64 maxDifficulty) external payable {
        _set(netuid, Hyper.MaxDifficulty, maxDifficulty);
    }

    function setMinBurn(uint16 netuid, uint64 minBurn) external payable {
        _set(netuid, Hyper.MinBurn, minBurn);
    }

    function setMaxBurn(uint16 netuid, uint64 maxBurn) external payable {
        _set(netuid, Hyper.MaxBurn, maxBurn);
    }

    function setLiquidAlphaEnabled(uint16 netuid, bool liquidAlphaEnabled) external payable {
        _set(netuid, Hyper.LiquidAlphaEnabled, liquidAlphaEnabled ? 1 : 0);
    }

    function setYuma3Enabled(uint16 netuid, bool yuma3Enabled) external payable {
        _set(netuid, Hyper.Yuma3Enabled, yuma3Enabled ? 1 : 0);
    }

    function setNetworkRegistrationAllowed(uint16 netuid, bool networkRegistrationAllowed) external payable {
        _set(netuid, Hyper.NetworkRegistrationAllowed, networkRegistrationAllowed ? 1 : 0);
    }

    function setNetworkPowRegistrationAllowed(uint16 netuid, bool networkPowRegistrationAllowed) external payable {
        _set(netuid, Hyper.NetworkPowRegistrationAllowed, networkPowRegistrationAllowed ? 1 : 0);
    }

    function setAlphaSigmoidSteepness(uint16 netuid, uint16 steepness) external payable {
        _set(netuid, Hyper.AlphaSigmoidSteepness, steepness);
    }

    function setServingRateLimit(uint16 netuid, uint64 servingRateLimit) external payable {
        _set(netuid, Hyper.ServingRateLimit, servingRateLimit);
    }

    function toggleTransfers(uint16 netuid, bool toggle) external payable {
        _set(netuid, Hyper.TransfersEnabled, toggle ? 1 : 0);
    }

    function setAlphaValues(uint16 netuid, uint16 alphaLow, uint16 alphaHigh) external payable {
        _set(netuid, Hyper.AlphaLow, alphaLow);
        _set(netuid, Hyper.AlphaHigh, alphaHigh);
    }
}
