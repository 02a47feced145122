// Code generated - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package contracts

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/event"
)

// Reference imports to suppress errors if they are not otherwise used.
var (
	_ = errors.New
	_ = big.NewInt
	_ = strings.NewReader
	_ = ethereum.NotFound
	_ = bind.Bind
	_ = common.Big1
	_ = types.BloomLookup
	_ = event.NewSubscription
	_ = abi.ConvertType
	_ = time.Tick
	_ = context.Background
)

// AxonInfo is an auto generated low-level Go binding around an user-defined struct.
type AxonInfo struct {
	Block    uint64
	Version  uint32
	Ip       *big.Int
	Port     uint16
	IpType   uint8
	Protocol uint8
}

// LookupItem is an auto generated low-level Go binding around an user-defined struct.
type LookupItem struct {
	Uid             uint16
	BlockAssociated uint64
}

// NeuronInfo is an auto generated low-level Go binding around an user-defined struct.
type NeuronInfo struct {
	Hotkey             [32]byte
	Coldkey            [32]byte
	Stake              uint64
	ValidatorPermit    bool
	Active             bool
	LastUpdate         uint64
	RegistrationBlock  uint64
	Rank               uint16
	Trust              uint16
	Consensus          uint16
	Incentive          uint16
	Dividends          uint16
	Vtrust             uint16
	Emission           uint64
	Axon               AxonInfo
	EvmAddress         common.Address
	EvmAssociatedBlock uint64
}

// PrometheusInfo is an auto generated low-level Go binding around an user-defined struct.
type PrometheusInfo struct {
	Block   uint64
	Version uint32
	Ip      *big.Int
	Port    uint16
	IpType  uint8
}

// SubtensorStateMetaData contains all meta data concerning the SubtensorState contract.
var SubtensorStateMetaData = &bind.MetaData{
	ABI: "[{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"previous\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"admin\",\"type\":\"address\"}],\"name\":\"AdminChanged\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"indexed\":false,\"internalType\":\"uint16\",\"name\":\"uid\",\"type\":\"uint16\"}],\"name\":\"AxonServed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"blockNumber\",\"type\":\"uint64\"}],\"name\":\"EpochResultsSet\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"by\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"firesAt\",\"type\":\"uint64\"}],\"name\":\"EpochTriggered\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"indexed\":false,\"internalType\":\"uint16\",\"name\":\"uid\",\"type\":\"uint16\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"evmAddress\",\"type\":\"address\"}],\"name\":\"EvmKeyAssociated\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"indexed\":false,\"internalType\":\"uint8\",\"name\":\"param\",\"type\":\"uint8\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"HyperparameterSet\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"indexed\":false,\"internalType\":\"uint16\",\"name\":\"uid\",\"type\":\"uint16\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"hotkey\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"coldkey\",\"type\":\"bytes32\"}],\"name\":\"NeuronRegistered\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"indexed\":false,\"internalType\":\"uint16\",\"name\":\"uid\",\"type\":\"uint16\"}],\"name\":\"PrometheusServed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"tempo\",\"type\":\"uint64\"}],\"name\":\"SubnetCreated\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"indexed\":false,\"internalType\":\"uint16\",\"name\":\"uid\",\"type\":\"uint16\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"commitHash\",\"type\":\"bytes32\"}],\"name\":\"WeightsCommitted\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"indexed\":false,\"internalType\":\"uint16\",\"name\":\"uid\",\"type\":\"uint16\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"commitHash\",\"type\":\"bytes32\"}],\"name\":\"WeightsRevealed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"indexed\":false,\"internalType\":\"uint16\",\"name\":\"uid\",\"type\":\"uint16\"}],\"name\":\"WeightsSet\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"admin\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"uint16\",\"name\":\"uid\",\"type\":\"uint16\"},{\"internalType\":\"address\",\"name\":\"evmAddress\",\"type\":\"address\"}],\"name\":\"associateEvmKey\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"name\":\"blake2b256\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"account\",\"type\":\"bytes32\"},{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"uint16[]\",\"name\":\"uids\",\"type\":\"uint16[]\"},{\"internalType\":\"uint16[]\",\"name\":\"values\",\"type\":\"uint16[]\"},{\"internalType\":\"uint16[]\",\"name\":\"salt\",\"type\":\"uint16[]\"},{\"internalType\":\"uint64\",\"name\":\"versionKey\",\"type\":\"uint64\"}],\"name\":\"commitHashOf\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"tempo\",\"type\":\"uint64\"}],\"name\":\"createSubnet\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"uint16\",\"name\":\"uid\",\"type\":\"uint16\"}],\"name\":\"getAxon\",\"outputs\":[{\"components\":[{\"internalType\":\"uint64\",\"name\":\"block\",\"type\":\"uint64\"},{\"internalType\":\"uint32\",\"name\":\"version\",\"type\":\"uint32\"},{\"internalType\":\"uint128\",\"name\":\"ip\",\"type\":\"uint128\"},{\"internalType\":\"uint16\",\"name\":\"port\",\"type\":\"uint16\"},{\"internalType\":\"uint8\",\"name\":\"ip_type\",\"type\":\"uint8\"},{\"internalType\":\"uint8\",\"name\":\"protocol\",\"type\":\"uint8\"}],\"internalType\":\"structAxonInfo\",\"name\":\"\",\"type\":\"tuple\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"uint16\",\"name\":\"uid\",\"type\":\"uint16\"}],\"name\":\"getPendingCommits\",\"outputs\":[{\"internalType\":\"bytes32[]\",\"name\":\"hashes\",\"type\":\"bytes32[]\"},{\"internalType\":\"uint64[]\",\"name\":\"blocks\",\"type\":\"uint64[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"uint16\",\"name\":\"uid\",\"type\":\"uint16\"}],\"name\":\"getPrometheus\",\"outputs\":[{\"components\":[{\"internalType\":\"uint64\",\"name\":\"block\",\"type\":\"uint64\"},{\"internalType\":\"uint32\",\"name\":\"version\",\"type\":\"uint32\"},{\"internalType\":\"uint128\",\"name\":\"ip\",\"type\":\"uint128\"},{\"internalType\":\"uint16\",\"name\":\"port\",\"type\":\"uint16\"},{\"internalType\":\"uint8\",\"name\":\"ip_type\",\"type\":\"uint8\"}],\"internalType\":\"structPrometheusInfo\",\"name\":\"\",\"type\":\"tuple\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"}],\"name\":\"getTempo\",\"outputs\":[{\"internalType\":\"uint64\",\"name\":\"\",\"type\":\"uint64\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"}],\"name\":\"getUidCount\",\"outputs\":[{\"internalType\":\"uint16\",\"name\":\"\",\"type\":\"uint16\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"uint16\",\"name\":\"uid\",\"type\":\"uint16\"}],\"name\":\"getWeights\",\"outputs\":[{\"internalType\":\"uint16[]\",\"name\":\"uids\",\"type\":\"uint16[]\"},{\"internalType\":\"uint16[]\",\"name\":\"values\",\"type\":\"uint16[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"enumHyper\",\"name\":\"param\",\"type\":\"uint8\"}],\"name\":\"hyperparameter\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"a\",\"type\":\"address\"}],\"name\":\"mirror\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"},{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"bytes32\",\"name\":\"hotkey\",\"type\":\"bytes32\"}],\"name\":\"neuronBurnedRegister\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"},{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"bytes32\",\"name\":\"commitHash\",\"type\":\"bytes32\"}],\"name\":\"neuronCommitWeights\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"uint16\",\"name\":\"uid\",\"type\":\"uint16\"}],\"name\":\"neuronInfo\",\"outputs\":[{\"components\":[{\"internalType\":\"bytes32\",\"name\":\"hotkey\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"coldkey\",\"type\":\"bytes32\"},{\"internalType\":\"uint64\",\"name\":\"stake\",\"type\":\"uint64\"},{\"internalType\":\"bool\",\"name\":\"validatorPermit\",\"type\":\"bool\"},{\"internalType\":\"bool\",\"name\":\"active\",\"type\":\"bool\"},{\"internalType\":\"uint64\",\"name\":\"lastUpdate\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"registrationBlock\",\"type\":\"uint64\"},{\"internalType\":\"uint16\",\"name\":\"rank\",\"type\":\"uint16\"},{\"internalType\":\"uint16\",\"name\":\"trust\",\"type\":\"uint16\"},{\"internalType\":\"uint16\",\"name\":\"consensus\",\"type\":\"uint16\"},{\"internalType\":\"uint16\",\"name\":\"incentive\",\"type\":\"uint16\"},{\"internalType\":\"uint16\",\"name\":\"dividends\",\"type\":\"uint16\"},{\"internalType\":\"uint16\",\"name\":\"vtrust\",\"type\":\"uint16\"},{\"internalType\":\"uint64\",\"name\":\"emission\",\"type\":\"uint64\"},{\"components\":[{\"internalType\":\"uint64\",\"name\":\"block\",\"type\":\"uint64\"},{\"internalType\":\"uint32\",\"name\":\"version\",\"type\":\"uint32\"},{\"internalType\":\"uint128\",\"name\":\"ip\",\"type\":\"uint128\"},{\"internalType\":\"uint16\",\"name\":\"port\",\"type\":\"uint16\"},{\"internalType\":\"uint8\",\"name\":\"ip_type\",\"type\":\"uint8\"},{\"internalType\":\"uint8\",\"name\":\"protocol\",\"type\":\"uint8\"}],\"internalType\":\"structAxonInfo\",\"name\":\"axon\",\"type\":\"tuple\"},{\"internalType\":\"address\",\"name\":\"evmAddress\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"evmAssociatedBlock\",\"type\":\"uint64\"}],\"internalType\":\"structNeuronInfo\",\"name\":\"info\",\"type\":\"tuple\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"},{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"uint16[]\",\"name\":\"uids\",\"type\":\"uint16[]\"},{\"internalType\":\"uint16[]\",\"name\":\"values\",\"type\":\"uint16[]\"},{\"internalType\":\"uint16[]\",\"name\":\"salt\",\"type\":\"uint16[]\"},{\"internalType\":\"uint64\",\"name\":\"versionKey\",\"type\":\"uint64\"}],\"name\":\"neuronRevealWeights\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"},{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"uint32\",\"name\":\"version\",\"type\":\"uint32\"},{\"internalType\":\"uint128\",\"name\":\"ip\",\"type\":\"uint128\"},{\"internalType\":\"uint16\",\"name\":\"port\",\"type\":\"uint16\"},{\"internalType\":\"uint8\",\"name\":\"ipType\",\"type\":\"uint8\"},{\"internalType\":\"uint8\",\"name\":\"protocol\",\"type\":\"uint8\"}],\"name\":\"neuronServeAxon\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"},{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"uint32\",\"name\":\"version\",\"type\":\"uint32\"},{\"internalType\":\"uint128\",\"name\":\"ip\",\"type\":\"uint128\"},{\"internalType\":\"uint16\",\"name\":\"port\",\"type\":\"uint16\"},{\"internalType\":\"uint8\",\"name\":\"ipType\",\"type\":\"uint8\"}],\"name\":\"neuronServePrometheus\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"},{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"uint16[]\",\"name\":\"dests\",\"type\":\"uint16[]\"},{\"internalType\":\"uint16[]\",\"name\":\"weights\",\"type\":\"uint16[]\"},{\"internalType\":\"uint64\",\"name\":\"versionKey\",\"type\":\"uint64\"}],\"name\":\"neuronSetWeights\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"bytes32\",\"name\":\"hotkey\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"coldkey\",\"type\":\"bytes32\"},{\"internalType\":\"uint64\",\"name\":\"stake\",\"type\":\"uint64\"},{\"internalType\":\"bool\",\"name\":\"validatorPermit\",\"type\":\"bool\"}],\"name\":\"registerNeuron\",\"outputs\":[{\"internalType\":\"uint16\",\"name\":\"uid\",\"type\":\"uint16\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"uint16\",\"name\":\"uid\",\"type\":\"uint16\"},{\"internalType\":\"bytes32\",\"name\":\"hotkey\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"coldkey\",\"type\":\"bytes32\"},{\"internalType\":\"uint64\",\"name\":\"stake\",\"type\":\"uint64\"},{\"internalType\":\"bool\",\"name\":\"validatorPermit\",\"type\":\"bool\"}],\"name\":\"replaceNeuron\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"uint16\",\"name\":\"uid\",\"type\":\"uint16\"},{\"internalType\":\"bool\",\"name\":\"active\",\"type\":\"bool\"}],\"name\":\"setActive\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"newAdmin\",\"type\":\"address\"}],\"name\":\"setAdmin\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"window\",\"type\":\"uint16\"}],\"name\":\"setAdminFreezeWindow\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"uint16\",\"name\":\"uid\",\"type\":\"uint16\"},{\"internalType\":\"uint32\",\"name\":\"version\",\"type\":\"uint32\"},{\"internalType\":\"uint128\",\"name\":\"ip\",\"type\":\"uint128\"},{\"internalType\":\"uint16\",\"name\":\"port\",\"type\":\"uint16\"},{\"internalType\":\"uint8\",\"name\":\"ipType\",\"type\":\"uint8\"},{\"internalType\":\"uint8\",\"name\":\"protocol\",\"type\":\"uint8\"}],\"name\":\"setAxon\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"uint16[]\",\"name\":\"rank\",\"type\":\"uint16[]\"},{\"internalType\":\"uint16[]\",\"name\":\"trust\",\"type\":\"uint16[]\"},{\"internalType\":\"uint16[]\",\"name\":\"consensus\",\"type\":\"uint16[]\"},{\"internalType\":\"uint16[]\",\"name\":\"incentive\",\"type\":\"uint16[]\"},{\"internalType\":\"uint16[]\",\"name\":\"dividends\",\"type\":\"uint16[]\"},{\"internalType\":\"uint16[]\",\"name\":\"vtrust\",\"type\":\"uint16[]\"},{\"internalType\":\"uint64[]\",\"name\":\"emission\",\"type\":\"uint64[]\"}],\"name\":\"setEpochResults\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"enumHyper\",\"name\":\"param\",\"type\":\"uint8\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"setHyperparameter\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"uint16\",\"name\":\"limit\",\"type\":\"uint16\"}],\"name\":\"setMaxWeightLimit\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"uint16\",\"name\":\"uid\",\"type\":\"uint16\"},{\"internalType\":\"uint64\",\"name\":\"stake\",\"type\":\"uint64\"}],\"name\":\"setStake\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"setSubnetOwner\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"uint64\",\"name\":\"tempo\",\"type\":\"uint64\"}],\"name\":\"setTempo\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"uint16\",\"name\":\"uid\",\"type\":\"uint16\"},{\"internalType\":\"bool\",\"name\":\"permit\",\"type\":\"bool\"}],\"name\":\"setValidatorPermit\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"enumStorageItem\",\"name\":\"item\",\"type\":\"uint8\"},{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"}],\"name\":\"storageItem\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"present\",\"type\":\"bool\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"}],\"name\":\"subnetExists\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"}],\"name\":\"subnetOwner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"},{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"enumHyper\",\"name\":\"param\",\"type\":\"uint8\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"subnetSetHyperparameter\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"}],\"name\":\"triggerEpoch\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"address\",\"name\":\"evmAddress\",\"type\":\"address\"},{\"internalType\":\"uint16\",\"name\":\"limit\",\"type\":\"uint16\"}],\"name\":\"uidLookup\",\"outputs\":[{\"components\":[{\"internalType\":\"uint16\",\"name\":\"uid\",\"type\":\"uint16\"},{\"internalType\":\"uint64\",\"name\":\"block_associated\",\"type\":\"uint64\"}],\"internalType\":\"structLookupItem[]\",\"name\":\"items\",\"type\":\"tuple[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"netuid\",\"type\":\"uint16\"},{\"internalType\":\"bytes32\",\"name\":\"hotkey\",\"type\":\"bytes32\"}],\"name\":\"uidOfHotkey\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"found\",\"type\":\"bool\"},{\"internalType\":\"uint16\",\"name\":\"uid\",\"type\":\"uint16\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
}

// SubtensorStateABI is the input ABI used to generate the binding from.
// Deprecated: Use SubtensorStateMetaData.ABI instead.
var SubtensorStateABI = SubtensorStateMetaData.ABI

// SubtensorState is an auto generated Go binding around an Ethereum contract.
type SubtensorState struct {
	SubtensorStateCaller     // Read-only binding to the contract
	SubtensorStateTransactor // Write-only binding to the contract
	SubtensorStateFilterer   // Log filterer for contract events
}

// SubtensorStateCaller is an auto generated read-only Go binding around an Ethereum contract.
type SubtensorStateCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// SubtensorStateTransactor is an auto generated write-only Go binding around an Ethereum contract.
type SubtensorStateTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// SubtensorStateFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type SubtensorStateFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// SubtensorStateSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type SubtensorStateSession struct {
	Contract     *SubtensorState   // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// SubtensorStateCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type SubtensorStateCallerSession struct {
	Contract *SubtensorStateCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts         // Call options to use throughout this session
}

// SubtensorStateTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type SubtensorStateTransactorSession struct {
	Contract     *SubtensorStateTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts         // Transaction auth options to use throughout this session
}

// SubtensorStateRaw is an auto generated low-level Go binding around an Ethereum contract.
type SubtensorStateRaw struct {
	Contract *SubtensorState // Generic contract binding to access the raw methods on
}

// SubtensorStateCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type SubtensorStateCallerRaw struct {
	Contract *SubtensorStateCaller // Generic read-only contract binding to access the raw methods on
}

// SubtensorStateTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type SubtensorStateTransactorRaw struct {
	Contract *SubtensorStateTransactor // Generic write-only contract binding to access the raw methods on
}

// NewSubtensorState creates a new instance of SubtensorState, bound to a specific deployed contract.
func NewSubtensorState(address common.Address, backend bind.ContractBackend) (*SubtensorState, error) {
	contract, err := bindSubtensorState(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &SubtensorState{SubtensorStateCaller: SubtensorStateCaller{contract: contract}, SubtensorStateTransactor: SubtensorStateTransactor{contract: contract}, SubtensorStateFilterer: SubtensorStateFilterer{contract: contract}}, nil
}

// NewSubtensorStateCaller creates a new read-only instance of SubtensorState, bound to a specific deployed contract.
func NewSubtensorStateCaller(address common.Address, caller bind.ContractCaller) (*SubtensorStateCaller, error) {
	contract, err := bindSubtensorState(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &SubtensorStateCaller{contract: contract}, nil
}

// NewSubtensorStateTransactor creates a new write-only instance of SubtensorState, bound to a specific deployed contract.
func NewSubtensorStateTransactor(address common.Address, transactor bind.ContractTransactor) (*SubtensorStateTransactor, error) {
	contract, err := bindSubtensorState(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &SubtensorStateTransactor{contract: contract}, nil
}

// NewSubtensorStateFilterer creates a new log filterer instance of SubtensorState, bound to a specific deployed contract.
func NewSubtensorStateFilterer(address common.Address, filterer bind.ContractFilterer) (*SubtensorStateFilterer, error) {
	contract, err := bindSubtensorState(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &SubtensorStateFilterer{contract: contract}, nil
}

// bindSubtensorState binds a generic wrapper to an already deployed contract.
func bindSubtensorState(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := SubtensorStateMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_SubtensorState *SubtensorStateRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _SubtensorState.Contract.SubtensorStateCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_SubtensorState *SubtensorStateRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _SubtensorState.Contract.SubtensorStateTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_SubtensorState *SubtensorStateRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _SubtensorState.Contract.SubtensorStateTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_SubtensorState *SubtensorStateCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _SubtensorState.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_SubtensorState *SubtensorStateTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _SubtensorState.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_SubtensorState *SubtensorStateTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _SubtensorState.Contract.contract.Transact(opts, method, params...)
}

// Admin is a free data retrieval call binding the contract method 0xf851a440.
//
// Solidity: function admin() view returns(address)
func (_SubtensorState *SubtensorStateCaller) Admin(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _SubtensorState.contract.Call(opts, &out, "admin")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// Admin is a free data retrieval call binding the contract method 0xf851a440.
//
// Solidity: function admin() view returns(address)
func (_SubtensorState *SubtensorStateSession) Admin() (common.Address, error) {
	return _SubtensorState.Contract.Admin(&_SubtensorState.CallOpts)
}

// Admin is a free data retrieval call binding the contract method 0xf851a440.
//
// Solidity: function admin() view returns(address)
func (_SubtensorState *SubtensorStateCallerSession) Admin() (common.Address, error) {
	return _SubtensorState.Contract.Admin(&_SubtensorState.CallOpts)
}

// Blake2b256 is a free data retrieval call binding the contract method 0x37245814.
//
// Solidity: function blake2b256(bytes data) view returns(bytes32)
func (_SubtensorState *SubtensorStateCaller) Blake2b256(opts *bind.CallOpts, data []byte) ([32]byte, error) {
	var out []interface{}
	err := _SubtensorState.contract.Call(opts, &out, "blake2b256", data)

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// Blake2b256 is a free data retrieval call binding the contract method 0x37245814.
//
// Solidity: function blake2b256(bytes data) view returns(bytes32)
func (_SubtensorState *SubtensorStateSession) Blake2b256(data []byte) ([32]byte, error) {
	return _SubtensorState.Contract.Blake2b256(&_SubtensorState.CallOpts, data)
}

// Blake2b256 is a free data retrieval call binding the contract method 0x37245814.
//
// Solidity: function blake2b256(bytes data) view returns(bytes32)
func (_SubtensorState *SubtensorStateCallerSession) Blake2b256(data []byte) ([32]byte, error) {
	return _SubtensorState.Contract.Blake2b256(&_SubtensorState.CallOpts, data)
}

// CommitHashOf is a free data retrieval call binding the contract method 0x0351b80d.
//
// Solidity: function commitHashOf(bytes32 account, uint16 netuid, uint16[] uids, uint16[] values, uint16[] salt, uint64 versionKey) view returns(bytes32)
func (_SubtensorState *SubtensorStateCaller) CommitHashOf(opts *bind.CallOpts, account [32]byte, netuid uint16, uids []uint16, values []uint16, salt []uint16, versionKey uint64) ([32]byte, error) {
	var out []interface{}
	err := _SubtensorState.contract.Call(opts, &out, "commitHashOf", account, netuid, uids, values, salt, versionKey)

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// CommitHashOf is a free data retrieval call binding the contract method 0x0351b80d.
//
// Solidity: function commitHashOf(bytes32 account, uint16 netuid, uint16[] uids, uint16[] values, uint16[] salt, uint64 versionKey) view returns(bytes32)
func (_SubtensorState *SubtensorStateSession) CommitHashOf(account [32]byte, netuid uint16, uids []uint16, values []uint16, salt []uint16, versionKey uint64) ([32]byte, error) {
	return _SubtensorState.Contract.CommitHashOf(&_SubtensorState.CallOpts, account, netuid, uids, values, salt, versionKey)
}

// CommitHashOf is a free data retrieval call binding the contract method 0x0351b80d.
//
// Solidity: function commitHashOf(bytes32 account, uint16 netuid, uint16[] uids, uint16[] values, uint16[] salt, uint64 versionKey) view returns(bytes32)
func (_SubtensorState *SubtensorStateCallerSession) CommitHashOf(account [32]byte, netuid uint16, uids []uint16, values []uint16, salt []uint16, versionKey uint64) ([32]byte, error) {
	return _SubtensorState.Contract.CommitHashOf(&_SubtensorState.CallOpts, account, netuid, uids, values, salt, versionKey)
}

// GetAxon is a free data retrieval call binding the contract method 0x93afb79e.
//
// Solidity: function getAxon(uint16 netuid, uint16 uid) view returns((uint64,uint32,uint128,uint16,uint8,uint8))
func (_SubtensorState *SubtensorStateCaller) GetAxon(opts *bind.CallOpts, netuid uint16, uid uint16) (AxonInfo, error) {
	var out []interface{}
	err := _SubtensorState.contract.Call(opts, &out, "getAxon", netuid, uid)

	if err != nil {
		return *new(AxonInfo), err
	}

	out0 := *abi.ConvertType(out[0], new(AxonInfo)).(*AxonInfo)

	return out0, err

}

// GetAxon is a free data retrieval call binding the contract method 0x93afb79e.
//
// Solidity: function getAxon(uint16 netuid, uint16 uid) view returns((uint64,uint32,uint128,uint16,uint8,uint8))
func (_SubtensorState *SubtensorStateSession) GetAxon(netuid uint16, uid uint16) (AxonInfo, error) {
	return _SubtensorState.Contract.GetAxon(&_SubtensorState.CallOpts, netuid, uid)
}

// GetAxon is a free data retrieval call binding the contract method 0x93afb79e.
//
// Solidity: function getAxon(uint16 netuid, uint16 uid) view returns((uint64,uint32,uint128,uint16,uint8,uint8))
func (_SubtensorState *SubtensorStateCallerSession) GetAxon(netuid uint16, uid uint16) (AxonInfo, error) {
	return _SubtensorState.Contract.GetAxon(&_SubtensorState.CallOpts, netuid, uid)
}

// GetPendingCommits is a free data retrieval call binding the contract method 0x2a291632.
//
// Solidity: function getPendingCommits(uint16 netuid, uint16 uid) view returns(bytes32[] hashes, uint64[] blocks)
func (_SubtensorState *SubtensorStateCaller) GetPendingCommits(opts *bind.CallOpts, netuid uint16, uid uint16) (struct {
	Hashes [][32]byte
	Blocks []uint64
}, error) {
	var out []interface{}
	err := _SubtensorState.contract.Call(opts, &out, "getPendingCommits", netuid, uid)

	outstruct := new(struct {
		Hashes [][32]byte
		Blocks []uint64
	})
	if err != nil {
		return *outstruct, err
	}

	outstruct.Hashes = *abi.ConvertType(out[0], new([][32]byte)).(*[][32]byte)
	outstruct.Blocks = *abi.ConvertType(out[1], new([]uint64)).(*[]uint64)

	return *outstruct, err

}

// GetPendingCommits is a free data retrieval call binding the contract method 0x2a291632.
//
// Solidity: function getPendingCommits(uint16 netuid, uint16 uid) view returns(bytes32[] hashes, uint64[] blocks)
func (_SubtensorState *SubtensorStateSession) GetPendingCommits(netuid uint16, uid uint16) (struct {
	Hashes [][32]byte
	Blocks []uint64
}, error) {
	return _SubtensorState.Contract.GetPendingCommits(&_SubtensorState.CallOpts, netuid, uid)
}

// GetPendingCommits is a free data retrieval call binding the contract method 0x2a291632.
//
// Solidity: function getPendingCommits(uint16 netuid, uint16 uid) view returns(bytes32[] hashes, uint64[] blocks)
func (_SubtensorState *SubtensorStateCallerSession) GetPendingCommits(netuid uint16, uid uint16) (struct {
	Hashes [][32]byte
	Blocks []uint64
}, error) {
	return _SubtensorState.Contract.GetPendingCommits(&_SubtensorState.CallOpts, netuid, uid)
}

// GetPrometheus is a free data retrieval call binding the contract method 0x6758289c.
//
// Solidity: function getPrometheus(uint16 netuid, uint16 uid) view returns((uint64,uint32,uint128,uint16,uint8))
func (_SubtensorState *SubtensorStateCaller) GetPrometheus(opts *bind.CallOpts, netuid uint16, uid uint16) (PrometheusInfo, error) {
	var out []interface{}
	err := _SubtensorState.contract.Call(opts, &out, "getPrometheus", netuid, uid)

	if err != nil {
		return *new(PrometheusInfo), err
	}

	out0 := *abi.ConvertType(out[0], new(PrometheusInfo)).(*PrometheusInfo)

	return out0, err

}

// GetPrometheus is a free data retrieval call binding the contract method 0x6758289c.
//
// Solidity: function getPrometheus(uint16 netuid, uint16 uid) view returns((uint64,uint32,uint128,uint16,uint8))
func (_SubtensorState *SubtensorStateSession) GetPrometheus(netuid uint16, uid uint16) (PrometheusInfo, error) {
	return _SubtensorState.Contract.GetPrometheus(&_SubtensorState.CallOpts, netuid, uid)
}

// GetPrometheus is a free data retrieval call binding the contract method 0x6758289c.
//
// Solidity: function getPrometheus(uint16 netuid, uint16 uid) view returns((uint64,uint32,uint128,uint16,uint8))
func (_SubtensorState *SubtensorStateCallerSession) GetPrometheus(netuid uint16, uid uint16) (PrometheusInfo, error) {
	return _SubtensorState.Contract.GetPrometheus(&_SubtensorState.CallOpts, netuid, uid)
}

// GetTempo is a free data retrieval call binding the contract method 0x585d1e14.
//
// Solidity: function getTempo(uint16 netuid) view returns(uint64)
func (_SubtensorState *SubtensorStateCaller) GetTempo(opts *bind.CallOpts, netuid uint16) (uint64, error) {
	var out []interface{}
	err := _SubtensorState.contract.Call(opts, &out, "getTempo", netuid)

	if err != nil {
		return *new(uint64), err
	}

	out0 := *abi.ConvertType(out[0], new(uint64)).(*uint64)

	return out0, err

}

// GetTempo is a free data retrieval call binding the contract method 0x585d1e14.
//
// Solidity: function getTempo(uint16 netuid) view returns(uint64)
func (_SubtensorState *SubtensorStateSession) GetTempo(netuid uint16) (uint64, error) {
	return _SubtensorState.Contract.GetTempo(&_SubtensorState.CallOpts, netuid)
}

// GetTempo is a free data retrieval call binding the contract method 0x585d1e14.
//
// Solidity: function getTempo(uint16 netuid) view returns(uint64)
func (_SubtensorState *SubtensorStateCallerSession) GetTempo(netuid uint16) (uint64, error) {
	return _SubtensorState.Contract.GetTempo(&_SubtensorState.CallOpts, netuid)
}

// GetUidCount is a free data retrieval call binding the contract method 0x1f193572.
//
// Solidity: function getUidCount(uint16 netuid) view returns(uint16)
func (_SubtensorState *SubtensorStateCaller) GetUidCount(opts *bind.CallOpts, netuid uint16) (uint16, error) {
	var out []interface{}
	err := _SubtensorState.contract.Call(opts, &out, "getUidCount", netuid)

	if err != nil {
		return *new(uint16), err
	}

	out0 := *abi.ConvertType(out[0], new(uint16)).(*uint16)

	return out0, err

}

// GetUidCount is a free data retrieval call binding the contract method 0x1f193572.
//
// Solidity: function getUidCount(uint16 netuid) view returns(uint16)
func (_SubtensorState *SubtensorStateSession) GetUidCount(netuid uint16) (uint16, error) {
	return _SubtensorState.Contract.GetUidCount(&_SubtensorState.CallOpts, netuid)
}

// GetUidCount is a free data retrieval call binding the contract method 0x1f193572.
//
// Solidity: function getUidCount(uint16 netuid) view returns(uint16)
func (_SubtensorState *SubtensorStateCallerSession) GetUidCount(netuid uint16) (uint16, error) {
	return _SubtensorState.Contract.GetUidCount(&_SubtensorState.CallOpts, netuid)
}

// GetWeights is a free data retrieval call binding the contract method 0x95675a5d.
//
// Solidity: function getWeights(uint16 netuid, uint16 uid) view returns(uint16[] uids, uint16[] values)
func (_SubtensorState *SubtensorStateCaller) GetWeights(opts *bind.CallOpts, netuid uint16, uid uint16) (struct {
	Uids   []uint16
	Values []uint16
}, error) {
	var out []interface{}
	err := _SubtensorState.contract.Call(opts, &out, "getWeights", netuid, uid)

	outstruct := new(struct {
		Uids   []uint16
		Values []uint16
	})
	if err != nil {
		return *outstruct, err
	}

	outstruct.Uids = *abi.ConvertType(out[0], new([]uint16)).(*[]uint16)
	outstruct.Values = *abi.ConvertType(out[1], new([]uint16)).(*[]uint16)

	return *outstruct, err

}

// GetWeights is a free data retrieval call binding the contract method 0x95675a5d.
//
// Solidity: function getWeights(uint16 netuid, uint16 uid) view returns(uint16[] uids, uint16[] values)
func (_SubtensorState *SubtensorStateSession) GetWeights(netuid uint16, uid uint16) (struct {
	Uids   []uint16
	Values []uint16
}, error) {
	return _SubtensorState.Contract.GetWeights(&_SubtensorState.CallOpts, netuid, uid)
}

// GetWeights is a free data retrieval call binding the contract method 0x95675a5d.
//
// Solidity: function getWeights(uint16 netuid, uint16 uid) view returns(uint16[] uids, uint16[] values)
func (_SubtensorState *SubtensorStateCallerSession) GetWeights(netuid uint16, uid uint16) (struct {
	Uids   []uint16
	Values []uint16
}, error) {
	return _SubtensorState.Contract.GetWeights(&_SubtensorState.CallOpts, netuid, uid)
}

// Hyperparameter is a free data retrieval call binding the contract method 0xd8c3b3e7.
//
// Solidity: function hyperparameter(uint16 netuid, uint8 param) view returns(uint256)
func (_SubtensorState *SubtensorStateCaller) Hyperparameter(opts *bind.CallOpts, netuid uint16, param uint8) (*big.Int, error) {
	var out []interface{}
	err := _SubtensorState.contract.Call(opts, &out, "hyperparameter", netuid, param)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Hyperparameter is a free data retrieval call binding the contract method 0xd8c3b3e7.
//
// Solidity: function hyperparameter(uint16 netuid, uint8 param) view returns(uint256)
func (_SubtensorState *SubtensorStateSession) Hyperparameter(netuid uint16, param uint8) (*big.Int, error) {
	return _SubtensorState.Contract.Hyperparameter(&_SubtensorState.CallOpts, netuid, param)
}

// Hyperparameter is a free data retrieval call binding the contract method 0xd8c3b3e7.
//
// Solidity: function hyperparameter(uint16 netuid, uint8 param) view returns(uint256)
func (_SubtensorState *SubtensorStateCallerSession) Hyperparameter(netuid uint16, param uint8) (*big.Int, error) {
	return _SubtensorState.Contract.Hyperparameter(&_SubtensorState.CallOpts, netuid, param)
}

// Mirror is a free data retrieval call binding the contract method 0xa768079b.
//
// Solidity: function mirror(address a) view returns(bytes32)
func (_SubtensorState *SubtensorStateCaller) Mirror(opts *bind.CallOpts, a common.Address) ([32]byte, error) {
	var out []interface{}
	err := _SubtensorState.contract.Call(opts, &out, "mirror", a)

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// Mirror is a free data retrieval call binding the contract method 0xa768079b.
//
// Solidity: function mirror(address a) view returns(bytes32)
func (_SubtensorState *SubtensorStateSession) Mirror(a common.Address) ([32]byte, error) {
	return _SubtensorState.Contract.Mirror(&_SubtensorState.CallOpts, a)
}

// Mirror is a free data retrieval call binding the contract method 0xa768079b.
//
// Solidity: function mirror(address a) view returns(bytes32)
func (_SubtensorState *SubtensorStateCallerSession) Mirror(a common.Address) ([32]byte, error) {
	return _SubtensorState.Contract.Mirror(&_SubtensorState.CallOpts, a)
}

// NeuronInfo is a free data retrieval call binding the contract method 0xdc317da2.
//
// Solidity: function neuronInfo(uint16 netuid, uint16 uid) view returns((bytes32,bytes32,uint64,bool,bool,uint64,uint64,uint16,uint16,uint16,uint16,uint16,uint16,uint64,(uint64,uint32,uint128,uint16,uint8,uint8),address,uint64) info)
func (_SubtensorState *SubtensorStateCaller) NeuronInfo(opts *bind.CallOpts, netuid uint16, uid uint16) (NeuronInfo, error) {
	var out []interface{}
	err := _SubtensorState.contract.Call(opts, &out, "neuronInfo", netuid, uid)

	if err != nil {
		return *new(NeuronInfo), err
	}

	out0 := *abi.ConvertType(out[0], new(NeuronInfo)).(*NeuronInfo)

	return out0, err

}

// NeuronInfo is a free data retrieval call binding the contract method 0xdc317da2.
//
// Solidity: function neuronInfo(uint16 netuid, uint16 uid) view returns((bytes32,bytes32,uint64,bool,bool,uint64,uint64,uint16,uint16,uint16,uint16,uint16,uint16,uint64,(uint64,uint32,uint128,uint16,uint8,uint8),address,uint64) info)
func (_SubtensorState *SubtensorStateSession) NeuronInfo(netuid uint16, uid uint16) (NeuronInfo, error) {
	return _SubtensorState.Contract.NeuronInfo(&_SubtensorState.CallOpts, netuid, uid)
}

// NeuronInfo is a free data retrieval call binding the contract method 0xdc317da2.
//
// Solidity: function neuronInfo(uint16 netuid, uint16 uid) view returns((bytes32,bytes32,uint64,bool,bool,uint64,uint64,uint16,uint16,uint16,uint16,uint16,uint16,uint64,(uint64,uint32,uint128,uint16,uint8,uint8),address,uint64) info)
func (_SubtensorState *SubtensorStateCallerSession) NeuronInfo(netuid uint16, uid uint16) (NeuronInfo, error) {
	return _SubtensorState.Contract.NeuronInfo(&_SubtensorState.CallOpts, netuid, uid)
}

// StorageItem is a free data retrieval call binding the contract method 0x600ae86c.
//
// Solidity: function storageItem(uint8 item, uint16 netuid) view returns(bool present, uint256 value)
func (_SubtensorState *SubtensorStateCaller) StorageItem(opts *bind.CallOpts, item uint8, netuid uint16) (struct {
	Present bool
	Value   *big.Int
}, error) {
	var out []interface{}
	err := _SubtensorState.contract.Call(opts, &out, "storageItem", item, netuid)

	outstruct := new(struct {
		Present bool
		Value   *big.Int
	})
	if err != nil {
		return *outstruct, err
	}

	outstruct.Present = *abi.ConvertType(out[0], new(bool)).(*bool)
	outstruct.Value = *abi.ConvertType(out[1], new(*big.Int)).(**big.Int)

	return *outstruct, err

}

// StorageItem is a free data retrieval call binding the contract method 0x600ae86c.
//
// Solidity: function storageItem(uint8 item, uint16 netuid) view returns(bool present, uint256 value)
func (_SubtensorState *SubtensorStateSession) StorageItem(item uint8, netuid uint16) (struct {
	Present bool
	Value   *big.Int
}, error) {
	return _SubtensorState.Contract.StorageItem(&_SubtensorState.CallOpts, item, netuid)
}

// StorageItem is a free data retrieval call binding the contract method 0x600ae86c.
//
// Solidity: function storageItem(uint8 item, uint16 netuid) view returns(bool present, uint256 value)
func (_SubtensorState *SubtensorStateCallerSession) StorageItem(item uint8, netuid uint16) (struct {
	Present bool
	Value   *big.Int
}, error) {
	return _SubtensorState.Contract.StorageItem(&_SubtensorState.CallOpts, item, netuid)
}

// SubnetExists is a free data retrieval call binding the contract method 0xbc3553ac.
//
// Solidity: function subnetExists(uint16 netuid) view returns(bool)
func (_SubtensorState *SubtensorStateCaller) SubnetExists(opts *bind.CallOpts, netuid uint16) (bool, error) {
	var out []interface{}
	err := _SubtensorState.contract.Call(opts, &out, "subnetExists", netuid)

	if err != nil {
		return *new(bool), err
	}

	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)

	return out0, err

}

// SubnetExists is a free data retrieval call binding the contract method 0xbc3553ac.
//
// Solidity: function subnetExists(uint16 netuid) view returns(bool)
func (_SubtensorState *SubtensorStateSession) SubnetExists(netuid uint16) (bool, error) {
	return _SubtensorState.Contract.SubnetExists(&_SubtensorState.CallOpts, netuid)
}

// SubnetExists is a free data retrieval call binding the contract method 0xbc3553ac.
//
// Solidity: function subnetExists(uint16 netuid) view returns(bool)
func (_SubtensorState *SubtensorStateCallerSession) SubnetExists(netuid uint16) (bool, error) {
	return _SubtensorState.Contract.SubnetExists(&_SubtensorState.CallOpts, netuid)
}

// SubnetOwner is a free data retrieval call binding the contract method 0xafdf9080.
//
// Solidity: function subnetOwner(uint16 netuid) view returns(address)
func (_SubtensorState *SubtensorStateCaller) SubnetOwner(opts *bind.CallOpts, netuid uint16) (common.Address, error) {
	var out []interface{}
	err := _SubtensorState.contract.Call(opts, &out, "subnetOwner", netuid)

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// SubnetOwner is a free data retrieval call binding the contract method 0xafdf9080.
//
// Solidity: function subnetOwner(uint16 netuid) view returns(address)
func (_SubtensorState *SubtensorStateSession) SubnetOwner(netuid uint16) (common.Address, error) {
	return _SubtensorState.Contract.SubnetOwner(&_SubtensorState.CallOpts, netuid)
}

// SubnetOwner is a free data retrieval call binding the contract method 0xafdf9080.
//
// Solidity: function subnetOwner(uint16 netuid) view returns(address)
func (_SubtensorState *SubtensorStateCallerSession) SubnetOwner(netuid uint16) (common.Address, error) {
	return _SubtensorState.Contract.SubnetOwner(&_SubtensorState.CallOpts, netuid)
}

// UidLookup is a free data retrieval call binding the contract method 0xb1f789ef.
//
// Solidity: function uidLookup(uint16 netuid, address evmAddress, uint16 limit) view returns((uint16,uint64)[] items)
func (_SubtensorState *SubtensorStateCaller) UidLookup(opts *bind.CallOpts, netuid uint16, evmAddress common.Address, limit uint16) ([]LookupItem, error) {
	var out []interface{}
	err := _SubtensorState.contract.Call(opts, &out, "uidLookup", netuid, evmAddress, limit)

	if err != nil {
		return *new([]LookupItem), err
	}

	out0 := *abi.ConvertType(out[0], new([]LookupItem)).(*[]LookupItem)

	return out0, err

}

// UidLookup is a free data retrieval call binding the contract method 0xb1f789ef.
//
// Solidity: function uidLookup(uint16 netuid, address evmAddress, uint16 limit) view returns((uint16,uint64)[] items)
func (_SubtensorState *SubtensorStateSession) UidLookup(netuid uint16, evmAddress common.Address, limit uint16) ([]LookupItem, error) {
	return _SubtensorState.Contract.UidLookup(&_SubtensorState.CallOpts, netuid, evmAddress, limit)
}

// UidLookup is a free data retrieval call binding the contract method 0xb1f789ef.
//
// Solidity: function uidLookup(uint16 netuid, address evmAddress, uint16 limit) view returns((uint16,uint64)[] items)
func (_SubtensorState *SubtensorStateCallerSession) UidLookup(netuid uint16, evmAddress common.Address, limit uint16) ([]LookupItem, error) {
	return _SubtensorState.Contract.UidLookup(&_SubtensorState.CallOpts, netuid, evmAddress, limit)
}

// UidOfHotkey is a free data retrieval call binding the contract method 0xa893070e.
//
// Solidity: function uidOfHotkey(uint16 netuid, bytes32 hotkey) view returns(bool found, uint16 uid)
func (_SubtensorState *SubtensorStateCaller) UidOfHotkey(opts *bind.CallOpts, netuid uint16, hotkey [32]byte) (struct {
	Found bool
	Uid   uint16
}, error) {
	var out []interface{}
	err := _SubtensorState.contract.Call(opts, &out, "uidOfHotkey", netuid, hotkey)

	outstruct := new(struct {
		Found bool
		Uid   uint16
	})
	if err != nil {
		return *outstruct, err
	}

	outstruct.Found = *abi.ConvertType(out[0], new(bool)).(*bool)
	outstruct.Uid = *abi.ConvertType(out[1], new(uint16)).(*uint16)

	return *outstruct, err

}

// UidOfHotkey is a free data retrieval call binding the contract method 0xa893070e.
//
// Solidity: function uidOfHotkey(uint16 netuid, bytes32 hotkey) view returns(bool found, uint16 uid)
func (_SubtensorState *SubtensorStateSession) UidOfHotkey(netuid uint16, hotkey [32]byte) (struct {
	Found bool
	Uid   uint16
}, error) {
	return _SubtensorState.Contract.UidOfHotkey(&_SubtensorState.CallOpts, netuid, hotkey)
}

// UidOfHotkey is a free data retrieval call binding the contract method 0xa893070e.
//
// Solidity: function uidOfHotkey(uint16 netuid, bytes32 hotkey) view returns(bool found, uint16 uid)
func (_SubtensorState *SubtensorStateCallerSession) UidOfHotkey(netuid uint16, hotkey [32]byte) (struct {
	Found bool
	Uid   uint16
}, error) {
	return _SubtensorState.Contract.UidOfHotkey(&_SubtensorState.CallOpts, netuid, hotkey)
}

// AssociateEvmKey is a paid mutator transaction binding the contract method 0x4329ec0d.
//
// Solidity: function associateEvmKey(uint16 netuid, uint16 uid, address evmAddress) returns()
func (_SubtensorState *SubtensorStateTransactor) AssociateEvmKey(opts *bind.TransactOpts, netuid uint16, uid uint16, evmAddress common.Address) (*types.Transaction, error) {
	return _SubtensorState.contract.Transact(opts, "associateEvmKey", netuid, uid, evmAddress)
}

// AssociateEvmKey is a paid mutator transaction binding the contract method 0x4329ec0d.
//
// Solidity: function associateEvmKey(uint16 netuid, uint16 uid, address evmAddress) returns()
func (_SubtensorState *SubtensorStateSession) AssociateEvmKey(netuid uint16, uid uint16, evmAddress common.Address) (*types.Transaction, error) {
	return _SubtensorState.Contract.AssociateEvmKey(&_SubtensorState.TransactOpts, netuid, uid, evmAddress)
}

// AssociateEvmKey is a paid mutator transaction binding the contract method 0x4329ec0d.
//
// Solidity: function associateEvmKey(uint16 netuid, uint16 uid, address evmAddress) returns()
func (_SubtensorState *SubtensorStateTransactorSession) AssociateEvmKey(netuid uint16, uid uint16, evmAddress common.Address) (*types.Transaction, error) {
	return _SubtensorState.Contract.AssociateEvmKey(&_SubtensorState.TransactOpts, netuid, uid, evmAddress)
}

// CreateSubnet is a paid mutator transaction binding the contract method 0xa3a4f086.
//
// Solidity: function createSubnet(uint16 netuid, address owner, uint64 tempo) returns()
func (_SubtensorState *SubtensorStateTransactor) CreateSubnet(opts *bind.TransactOpts, netuid uint16, owner common.Address, tempo uint64) (*types.Transaction, error) {
	return _SubtensorState.contract.Transact(opts, "createSubnet", netuid, owner, tempo)
}

// CreateSubnet is a paid mutator transaction binding the contract method 0xa3a4f086.
//
// Solidity: function createSubnet(uint16 netuid, address owner, uint64 tempo) returns()
func (_SubtensorState *SubtensorStateSession) CreateSubnet(netuid uint16, owner common.Address, tempo uint64) (*types.Transaction, error) {
	return _SubtensorState.Contract.CreateSubnet(&_SubtensorState.TransactOpts, netuid, owner, tempo)
}

// CreateSubnet is a paid mutator transaction binding the contract method 0xa3a4f086.
//
// Solidity: function createSubnet(uint16 netuid, address owner, uint64 tempo) returns()
func (_SubtensorState *SubtensorStateTransactorSession) CreateSubnet(netuid uint16, owner common.Address, tempo uint64) (*types.Transaction, error) {
	return _SubtensorState.Contract.CreateSubnet(&_SubtensorState.TransactOpts, netuid, owner, tempo)
}

// NeuronBurnedRegister is a paid mutator transaction binding the contract method 0x326f6f21.
//
// Solidity: function neuronBurnedRegister(address caller, uint16 netuid, bytes32 hotkey) returns()
func (_SubtensorState *SubtensorStateTransactor) NeuronBurnedRegister(opts *bind.TransactOpts, caller common.Address, netuid uint16, hotkey [32]byte) (*types.Transaction, error) {
	return _SubtensorState.contract.Transact(opts, "neuronBurnedRegister", caller, netuid, hotkey)
}

// NeuronBurnedRegister is a paid mutator transaction binding the contract method 0x326f6f21.
//
// Solidity: function neuronBurnedRegister(address caller, uint16 netuid, bytes32 hotkey) returns()
func (_SubtensorState *SubtensorStateSession) NeuronBurnedRegister(caller common.Address, netuid uint16, hotkey [32]byte) (*types.Transaction, error) {
	return _SubtensorState.Contract.NeuronBurnedRegister(&_SubtensorState.TransactOpts, caller, netuid, hotkey)
}

// NeuronBurnedRegister is a paid mutator transaction binding the contract method 0x326f6f21.
//
// Solidity: function neuronBurnedRegister(address caller, uint16 netuid, bytes32 hotkey) returns()
func (_SubtensorState *SubtensorStateTransactorSession) NeuronBurnedRegister(caller common.Address, netuid uint16, hotkey [32]byte) (*types.Transaction, error) {
	return _SubtensorState.Contract.NeuronBurnedRegister(&_SubtensorState.TransactOpts, caller, netuid, hotkey)
}

// NeuronCommitWeights is a paid mutator transaction binding the contract method 0xd9912a6e.
//
// Solidity: function neuronCommitWeights(address caller, uint16 netuid, bytes32 commitHash) returns()
func (_SubtensorState *SubtensorStateTransactor) NeuronCommitWeights(opts *bind.TransactOpts, caller common.Address, netuid uint16, commitHash [32]byte) (*types.Transaction, error) {
	return _SubtensorState.contract.Transact(opts, "neuronCommitWeights", caller, netuid, commitHash)
}

// NeuronCommitWeights is a paid mutator transaction binding the contract method 0xd9912a6e.
//
// Solidity: function neuronCommitWeights(address caller, uint16 netuid, bytes32 commitHash) returns()
func (_SubtensorState *SubtensorStateSession) NeuronCommitWeights(caller common.Address, netuid uint16, commitHash [32]byte) (*types.Transaction, error) {
	return _SubtensorState.Contract.NeuronCommitWeights(&_SubtensorState.TransactOpts, caller, netuid, commitHash)
}

// NeuronCommitWeights is a paid mutator transaction binding the contract method 0xd9912a6e.
//
// Solidity: function neuronCommitWeights(address caller, uint16 netuid, bytes32 commitHash) returns()
func (_SubtensorState *SubtensorStateTransactorSession) NeuronCommitWeights(caller common.Address, netuid uint16, commitHash [32]byte) (*types.Transaction, error) {
	return _SubtensorState.Contract.NeuronCommitWeights(&_SubtensorState.TransactOpts, caller, netuid, commitHash)
}

// NeuronRevealWeights is a paid mutator transaction binding the contract method 0xc410f654.
//
// Solidity: function neuronRevealWeights(address caller, uint16 netuid, uint16[] uids, uint16[] values, uint16[] salt, uint64 versionKey) returns()
func (_SubtensorState *SubtensorStateTransactor) NeuronRevealWeights(opts *bind.TransactOpts, caller common.Address, netuid uint16, uids []uint16, values []uint16, salt []uint16, versionKey uint64) (*types.Transaction, error) {
	return _SubtensorState.contract.Transact(opts, "neuronRevealWeights", caller, netuid, uids, values, salt, versionKey)
}

// NeuronRevealWeights is a paid mutator transaction binding the contract method 0xc410f654.
//
// Solidity: function neuronRevealWeights(address caller, uint16 netuid, uint16[] uids, uint16[] values, uint16[] salt, uint64 versionKey) returns()
func (_SubtensorState *SubtensorStateSession) NeuronRevealWeights(caller common.Address, netuid uint16, uids []uint16, values []uint16, salt []uint16, versionKey uint64) (*types.Transaction, error) {
	return _SubtensorState.Contract.NeuronRevealWeights(&_SubtensorState.TransactOpts, caller, netuid, uids, values, salt, versionKey)
}

// NeuronRevealWeights is a paid mutator transaction binding the contract method 0xc410f654.
//
// Solidity: function neuronRevealWeights(address caller, uint16 netuid, uint16[] uids, uint16[] values, uint16[] salt, uint64 versionKey) returns()
func (_SubtensorState *SubtensorStateTransactorSession) NeuronRevealWeights(caller common.Address, netuid uint16, uids []uint16, values []uint16, salt []uint16, versionKey uint64) (*types.Transaction, error) {
	return _SubtensorState.Contract.NeuronRevealWeights(&_SubtensorState.TransactOpts, caller, netuid, uids, values, salt, versionKey)
}

// NeuronServeAxon is a paid mutator transaction binding the contract method 0xbce81edd.
//
// Solidity: function neuronServeAxon(address caller, uint16 netuid, uint32 version, uint128 ip, uint16 port, uint8 ipType, uint8 protocol) returns()
func (_SubtensorState *SubtensorStateTransactor) NeuronServeAxon(opts *bind.TransactOpts, caller common.Address, netuid uint16, version uint32, ip *big.Int, port uint16, ipType uint8, protocol uint8) (*types.Transaction, error) {
	return _SubtensorState.contract.Transact(opts, "neuronServeAxon", caller, netuid, version, ip, port, ipType, protocol)
}

// NeuronServeAxon is a paid mutator transaction binding the contract method 0xbce81edd.
//
// Solidity: function neuronServeAxon(address caller, uint16 netuid, uint32 version, uint128 ip, uint16 port, uint8 ipType, uint8 protocol) returns()
func (_SubtensorState *SubtensorStateSession) NeuronServeAxon(caller common.Address, netuid uint16, version uint32, ip *big.Int, port uint16, ipType uint8, protocol uint8) (*types.Transaction, error) {
	return _SubtensorState.Contract.NeuronServeAxon(&_SubtensorState.TransactOpts, caller, netuid, version, ip, port, ipType, protocol)
}

// NeuronServeAxon is a paid mutator transaction binding the contract method 0xbce81edd.
//
// Solidity: function neuronServeAxon(address caller, uint16 netuid, uint32 version, uint128 ip, uint16 port, uint8 ipType, uint8 protocol) returns()
func (_SubtensorState *SubtensorStateTransactorSession) NeuronServeAxon(caller common.Address, netuid uint16, version uint32, ip *big.Int, port uint16, ipType uint8, protocol uint8) (*types.Transaction, error) {
	return _SubtensorState.Contract.NeuronServeAxon(&_SubtensorState.TransactOpts, caller, netuid, version, ip, port, ipType, protocol)
}

// NeuronServePrometheus is a paid mutator transaction binding the contract method 0xea450aa5.
//
// Solidity: function neuronServePrometheus(address caller, uint16 netuid, uint32 version, uint128 ip, uint16 port, uint8 ipType) returns()
func (_SubtensorState *SubtensorStateTransactor) NeuronServePrometheus(opts *bind.TransactOpts, caller common.Address, netuid uint16, version uint32, ip *big.Int, port uint16, ipType uint8) (*types.Transaction, error) {
	return _SubtensorState.contract.Transact(opts, "neuronServePrometheus", caller, netuid, version, ip, port, ipType)
}

// NeuronServePrometheus is a paid mutator transaction binding the contract method 0xea450aa5.
//
// Solidity: function neuronServePrometheus(address caller, uint16 netuid, uint32 version, uint128 ip, uint16 port, uint8 ipType) returns()
func (_SubtensorState *SubtensorStateSession) NeuronServePrometheus(caller common.Address, netuid uint16, version uint32, ip *big.Int, port uint16, ipType uint8) (*types.Transaction, error) {
	return _SubtensorState.Contract.NeuronServePrometheus(&_SubtensorState.TransactOpts, caller, netuid, version, ip, port, ipType)
}

// NeuronServePrometheus is a paid mutator transaction binding the contract method 0xea450aa5.
//
// Solidity: function neuronServePrometheus(address caller, uint16 netuid, uint32 version, uint128 ip, uint16 port, uint8 ipType) returns()
func (_SubtensorState *SubtensorStateTransactorSession) NeuronServePrometheus(caller common.Address, netuid uint16, version uint32, ip *big.Int, port uint16, ipType uint8) (*types.Transaction, error) {
	return _SubtensorState.Contract.NeuronServePrometheus(&_SubtensorState.TransactOpts, caller, netuid, version, ip, port, ipType)
}

// NeuronSetWeights is a paid mutator transaction binding the contract method 0xd77ece64.
//
// Solidity: function neuronSetWeights(address caller, uint16 netuid, uint16[] dests, uint16[] weights, uint64 versionKey) returns()
func (_SubtensorState *SubtensorStateTransactor) NeuronSetWeights(opts *bind.TransactOpts, caller common.Address, netuid uint16, dests []uint16, weights []uint16, versionKey uint64) (*types.Transaction, error) {
	return _SubtensorState.contract.Transact(opts, "neuronSetWeights", caller, netuid, dests, weights, versionKey)
}

// NeuronSetWeights is a paid mutator transaction binding the contract method 0xd77ece64.
//
// Solidity: function neuronSetWeights(address caller, uint16 netuid, uint16[] dests, uint16[] weights, uint64 versionKey) returns()
func (_SubtensorState *SubtensorStateSession) NeuronSetWeights(caller common.Address, netuid uint16, dests []uint16, weights []uint16, versionKey uint64) (*types.Transaction, error) {
	return _SubtensorState.Contract.NeuronSetWeights(&_SubtensorState.TransactOpts, caller, netuid, dests, weights, versionKey)
}

// NeuronSetWeights is a paid mutator transaction binding the contract method 0xd77ece64.
//
// Solidity: function neuronSetWeights(address caller, uint16 netuid, uint16[] dests, uint16[] weights, uint64 versionKey) returns()
func (_SubtensorState *SubtensorStateTransactorSession) NeuronSetWeights(caller common.Address, netuid uint16, dests []uint16, weights []uint16, versionKey uint64) (*types.Transaction, error) {
	return _SubtensorState.Contract.NeuronSetWeights(&_SubtensorState.TransactOpts, caller, netuid, dests, weights, versionKey)
}

// RegisterNeuron is a paid mutator transaction binding the contract method 0x6dd6081a.
//
// Solidity: function registerNeuron(uint16 netuid, bytes32 hotkey, bytes32 coldkey, uint64 stake, bool validatorPermit) returns(uint16 uid)
func (_SubtensorState *SubtensorStateTransactor) RegisterNeuron(opts *bind.TransactOpts, netuid uint16, hotkey [32]byte, coldkey [32]byte, stake uint64, validatorPermit bool) (*types.Transaction, error) {
	return _SubtensorState.contract.Transact(opts, "registerNeuron", netuid, hotkey, coldkey, stake, validatorPermit)
}

// RegisterNeuron is a paid mutator transaction binding the contract method 0x6dd6081a.
//
// Solidity: function registerNeuron(uint16 netuid, bytes32 hotkey, bytes32 coldkey, uint64 stake, bool validatorPermit) returns(uint16 uid)
func (_SubtensorState *SubtensorStateSession) RegisterNeuron(netuid uint16, hotkey [32]byte, coldkey [32]byte, stake uint64, validatorPermit bool) (*types.Transaction, error) {
	return _SubtensorState.Contract.RegisterNeuron(&_SubtensorState.TransactOpts, netuid, hotkey, coldkey, stake, validatorPermit)
}

// RegisterNeuron is a paid mutator transaction binding the contract method 0x6dd6081a.
//
// Solidity: function registerNeuron(uint16 netuid, bytes32 hotkey, bytes32 coldkey, uint64 stake, bool validatorPermit) returns(uint16 uid)
func (_SubtensorState *SubtensorStateTransactorSession) RegisterNeuron(netuid uint16, hotkey [32]byte, coldkey [32]byte, stake uint64, validatorPermit bool) (*types.Transaction, error) {
	return _SubtensorState.Contract.RegisterNeuron(&_SubtensorState.TransactOpts, netuid, hotkey, coldkey, stake, validatorPermit)
}

// ReplaceNeuron is a paid mutator transaction binding the contract method 0xab42e16a.
//
// Solidity: function replaceNeuron(uint16 netuid, uint16 uid, bytes32 hotkey, bytes32 coldkey, uint64 stake, bool validatorPermit) returns()
func (_SubtensorState *SubtensorStateTransactor) ReplaceNeuron(opts *bind.TransactOpts, netuid uint16, uid uint16, hotkey [32]byte, coldkey [32]byte, stake uint64, validatorPermit bool) (*types.Transaction, error) {
	return _SubtensorState.contract.Transact(opts, "replaceNeuron", netuid, uid, hotkey, coldkey, stake, validatorPermit)
}

// ReplaceNeuron is a paid mutator transaction binding the contract method 0xab42e16a.
//
// Solidity: function replaceNeuron(uint16 netuid, uint16 uid, bytes32 hotkey, bytes32 coldkey, uint64 stake, bool validatorPermit) returns()
func (_SubtensorState *SubtensorStateSession) ReplaceNeuron(netuid uint16, uid uint16, hotkey [32]byte, coldkey [32]byte, stake uint64, validatorPermit bool) (*types.Transaction, error) {
	return _SubtensorState.Contract.ReplaceNeuron(&_SubtensorState.TransactOpts, netuid, uid, hotkey, coldkey, stake, validatorPermit)
}

// ReplaceNeuron is a paid mutator transaction binding the contract method 0xab42e16a.
//
// Solidity: function replaceNeuron(uint16 netuid, uint16 uid, bytes32 hotkey, bytes32 coldkey, uint64 stake, bool validatorPermit) returns()
func (_SubtensorState *SubtensorStateTransactorSession) ReplaceNeuron(netuid uint16, uid uint16, hotkey [32]byte, coldkey [32]byte, stake uint64, validatorPermit bool) (*types.Transaction, error) {
	return _SubtensorState.Contract.ReplaceNeuron(&_SubtensorState.TransactOpts, netuid, uid, hotkey, coldkey, stake, validatorPermit)
}

// SetActive is a paid mutator transaction binding the contract method 0x87b98793.
//
// Solidity: function setActive(uint16 netuid, uint16 uid, bool active) returns()
func (_SubtensorState *SubtensorStateTransactor) SetActive(opts *bind.TransactOpts, netuid uint16, uid uint16, active bool) (*types.Transaction, error) {
	return _SubtensorState.contract.Transact(opts, "setActive", netuid, uid, active)
}

// SetActive is a paid mutator transaction binding the contract method 0x87b98793.
//
// Solidity: function setActive(uint16 netuid, uint16 uid, bool active) returns()
func (_SubtensorState *SubtensorStateSession) SetActive(netuid uint16, uid uint16, active bool) (*types.Transaction, error) {
	return _SubtensorState.Contract.SetActive(&_SubtensorState.TransactOpts, netuid, uid, active)
}

// SetActive is a paid mutator transaction binding the contract method 0x87b98793.
//
// Solidity: function setActive(uint16 netuid, uint16 uid, bool active) returns()
func (_SubtensorState *SubtensorStateTransactorSession) SetActive(netuid uint16, uid uint16, active bool) (*types.Transaction, error) {
	return _SubtensorState.Contract.SetActive(&_SubtensorState.TransactOpts, netuid, uid, active)
}

// SetAdmin is a paid mutator transaction binding the contract method 0x704b6c02.
//
// Solidity: function setAdmin(address newAdmin) returns()
func (_SubtensorState *SubtensorStateTransactor) SetAdmin(opts *bind.TransactOpts, newAdmin common.Address) (*types.Transaction, error) {
	return _SubtensorState.contract.Transact(opts, "setAdmin", newAdmin)
}

// SetAdmin is a paid mutator transaction binding the contract method 0x704b6c02.
//
// Solidity: function setAdmin(address newAdmin) returns()
func (_SubtensorState *SubtensorStateSession) SetAdmin(newAdmin common.Address) (*types.Transaction, error) {
	return _SubtensorState.Contract.SetAdmin(&_SubtensorState.TransactOpts, newAdmin)
}

// SetAdmin is a paid mutator transaction binding the contract method 0x704b6c02.
//
// Solidity: function setAdmin(address newAdmin) returns()
func (_SubtensorState *SubtensorStateTransactorSession) SetAdmin(newAdmin common.Address) (*types.Transaction, error) {
	return _SubtensorState.Contract.SetAdmin(&_SubtensorState.TransactOpts, newAdmin)
}

// SetAdminFreezeWindow is a paid mutator transaction binding the contract method 0x5394e1e0.
//
// Solidity: function setAdminFreezeWindow(uint16 window) returns()
func (_SubtensorState *SubtensorStateTransactor) SetAdminFreezeWindow(opts *bind.TransactOpts, window uint16) (*types.Transaction, error) {
	return _SubtensorState.contract.Transact(opts, "setAdminFreezeWindow", window)
}

// SetAdminFreezeWindow is a paid mutator transaction binding the contract method 0x5394e1e0.
//
// Solidity: function setAdminFreezeWindow(uint16 window) returns()
func (_SubtensorState *SubtensorStateSession) SetAdminFreezeWindow(window uint16) (*types.Transaction, error) {
	return _SubtensorState.Contract.SetAdminFreezeWindow(&_SubtensorState.TransactOpts, window)
}

// SetAdminFreezeWindow is a paid mutator transaction binding the contract method 0x5394e1e0.
//
// Solidity: function setAdminFreezeWindow(uint16 window) returns()
func (_SubtensorState *SubtensorStateTransactorSession) SetAdminFreezeWindow(window uint16) (*types.Transaction, error) {
	return _SubtensorState.Contract.SetAdminFreezeWindow(&_SubtensorState.TransactOpts, window)
}

// SetAxon is a paid mutator transaction binding the contract method 0xdccd65d1.
//
// Solidity: function setAxon(uint16 netuid, uint16 uid, uint32 version, uint128 ip, uint16 port, uint8 ipType, uint8 protocol) returns()
func (_SubtensorState *SubtensorStateTransactor) SetAxon(opts *bind.TransactOpts, netuid uint16, uid uint16, version uint32, ip *big.Int, port uint16, ipType uint8, protocol uint8) (*types.Transaction, error) {
	return _SubtensorState.contract.Transact(opts, "setAxon", netuid, uid, version, ip, port, ipType, protocol)
}

// SetAxon is a paid mutator transaction binding the contract method 0xdccd65d1.
//
// Solidity: function setAxon(uint16 netuid, uint16 uid, uint32 version, uint128 ip, uint16 port, uint8 ipType, uint8 protocol) returns()
func (_SubtensorState *SubtensorStateSession) SetAxon(netuid uint16, uid uint16, version uint32, ip *big.Int, port uint16, ipType uint8, protocol uint8) (*types.Transaction, error) {
	return _SubtensorState.Contract.SetAxon(&_SubtensorState.TransactOpts, netuid, uid, version, ip, port, ipType, protocol)
}

// SetAxon is a paid mutator transaction binding the contract method 0xdccd65d1.
//
// Solidity: function setAxon(uint16 netuid, uint16 uid, uint32 version, uint128 ip, uint16 port, uint8 ipType, uint8 protocol) returns()
func (_SubtensorState *SubtensorStateTransactorSession) SetAxon(netuid uint16, uid uint16, version uint32, ip *big.Int, port uint16, ipType uint8, protocol uint8) (*types.Transaction, error) {
	return _SubtensorState.Contract.SetAxon(&_SubtensorState.TransactOpts, netuid, uid, version, ip, port, ipType, protocol)
}

// SetEpochResults is a paid mutator transaction binding the contract method 0x027c2a7f.
//
// Solidity: function setEpochResults(uint16 netuid, uint16[] rank, uint16[] trust, uint16[] consensus, uint16[] incentive, uint16[] dividends, uint16[] vtrust, uint64[] emission) returns()
func (_SubtensorState *SubtensorStateTransactor) SetEpochResults(opts *bind.TransactOpts, netuid uint16, rank []uint16, trust []uint16, consensus []uint16, incentive []uint16, dividends []uint16, vtrust []uint16, emission []uint64) (*types.Transaction, error) {
	return _SubtensorState.contract.Transact(opts, "setEpochResults", netuid, rank, trust, consensus, incentive, dividends, vtrust, emission)
}

// SetEpochResults is a paid mutator transaction binding the contract method 0x027c2a7f.
//
// Solidity: function setEpochResults(uint16 netuid, uint16[] rank, uint16[] trust, uint16[] consensus, uint16[] incentive, uint16[] dividends, uint16[] vtrust, uint64[] emission) returns()
func (_SubtensorState *SubtensorStateSession) SetEpochResults(netuid uint16, rank []uint16, trust []uint16, consensus []uint16, incentive []uint16, dividends []uint16, vtrust []uint16, emission []uint64) (*types.Transaction, error) {
	return _SubtensorState.Contract.SetEpochResults(&_SubtensorState.TransactOpts, netuid, rank, trust, consensus, incentive, dividends, vtrust, emission)
}

// SetEpochResults is a paid mutator transaction binding the contract method 0x027c2a7f.
//
// Solidity: function setEpochResults(uint16 netuid, uint16[] rank, uint16[] trust, uint16[] consensus, uint16[] incentive, uint16[] dividends, uint16[] vtrust, uint64[] emission) returns()
func (_SubtensorState *SubtensorStateTransactorSession) SetEpochResults(netuid uint16, rank []uint16, trust []uint16, consensus []uint16, incentive []uint16, dividends []uint16, vtrust []uint16, emission []uint64) (*types.Transaction, error) {
	return _SubtensorState.Contract.SetEpochResults(&_SubtensorState.TransactOpts, netuid, rank, trust, consensus, incentive, dividends, vtrust, emission)
}

// SetHyperparameter is a paid mutator transaction binding the contract method 0xae81e08c.
//
// Solidity: function setHyperparameter(uint16 netuid, uint8 param, uint256 value) returns()
func (_SubtensorState *SubtensorStateTransactor) SetHyperparameter(opts *bind.TransactOpts, netuid uint16, param uint8, value *big.Int) (*types.Transaction, error) {
	return _SubtensorState.contract.Transact(opts, "setHyperparameter", netuid, param, value)
}

// SetHyperparameter is a paid mutator transaction binding the contract method 0xae81e08c.
//
// Solidity: function setHyperparameter(uint16 netuid, uint8 param, uint256 value) returns()
func (_SubtensorState *SubtensorStateSession) SetHyperparameter(netuid uint16, param uint8, value *big.Int) (*types.Transaction, error) {
	return _SubtensorState.Contract.SetHyperparameter(&_SubtensorState.TransactOpts, netuid, param, value)
}

// SetHyperparameter is a paid mutator transaction binding the contract method 0xae81e08c.
//
// Solidity: function setHyperparameter(uint16 netuid, uint8 param, uint256 value) returns()
func (_SubtensorState *SubtensorStateTransactorSession) SetHyperparameter(netuid uint16, param uint8, value *big.Int) (*types.Transaction, error) {
	return _SubtensorState.Contract.SetHyperparameter(&_SubtensorState.TransactOpts, netuid, param, value)
}

// SetMaxWeightLimit is a paid mutator transaction binding the contract method 0x41ad109f.
//
// Solidity: function setMaxWeightLimit(uint16 netuid, uint16 limit) returns()
func (_SubtensorState *SubtensorStateTransactor) SetMaxWeightLimit(opts *bind.TransactOpts, netuid uint16, limit uint16) (*types.Transaction, error) {
	return _SubtensorState.contract.Transact(opts, "setMaxWeightLimit", netuid, limit)
}

// SetMaxWeightLimit is a paid mutator transaction binding the contract method 0x41ad109f.
//
// Solidity: function setMaxWeightLimit(uint16 netuid, uint16 limit) returns()
func (_SubtensorState *SubtensorStateSession) SetMaxWeightLimit(netuid uint16, limit uint16) (*types.Transaction, error) {
	return _SubtensorState.Contract.SetMaxWeightLimit(&_SubtensorState.TransactOpts, netuid, limit)
}

// SetMaxWeightLimit is a paid mutator transaction binding the contract method 0x41ad109f.
//
// Solidity: function setMaxWeightLimit(uint16 netuid, uint16 limit) returns()
func (_SubtensorState *SubtensorStateTransactorSession) SetMaxWeightLimit(netuid uint16, limit uint16) (*types.Transaction, error) {
	return _SubtensorState.Contract.SetMaxWeightLimit(&_SubtensorState.TransactOpts, netuid, limit)
}

// SetStake is a paid mutator transaction binding the contract method 0xff7f076e.
//
// Solidity: function setStake(uint16 netuid, uint16 uid, uint64 stake) returns()
func (_SubtensorState *SubtensorStateTransactor) SetStake(opts *bind.TransactOpts, netuid uint16, uid uint16, stake uint64) (*types.Transaction, error) {
	return _SubtensorState.contract.Transact(opts, "setStake", netuid, uid, stake)
}

// SetStake is a paid mutator transaction binding the contract method 0xff7f076e.
//
// Solidity: function setStake(uint16 netuid, uint16 uid, uint64 stake) returns()
func (_SubtensorState *SubtensorStateSession) SetStake(netuid uint16, uid uint16, stake uint64) (*types.Transaction, error) {
	return _SubtensorState.Contract.SetStake(&_SubtensorState.TransactOpts, netuid, uid, stake)
}

// SetStake is a paid mutator transaction binding the contract method 0xff7f076e.
//
// Solidity: function setStake(uint16 netuid, uint16 uid, uint64 stake) returns()
func (_SubtensorState *SubtensorStateTransactorSession) SetStake(netuid uint16, uid uint16, stake uint64) (*types.Transaction, error) {
	return _SubtensorState.Contract.SetStake(&_SubtensorState.TransactOpts, netuid, uid, stake)
}

// SetSubnetOwner is a paid mutator transaction binding the contract method 0xcb07e33e.
//
// Solidity: function setSubnetOwner(uint16 netuid, address owner) returns()
func (_SubtensorState *SubtensorStateTransactor) SetSubnetOwner(opts *bind.TransactOpts, netuid uint16, owner common.Address) (*types.Transaction, error) {
	return _SubtensorState.contract.Transact(opts, "setSubnetOwner", netuid, owner)
}

// SetSubnetOwner is a paid mutator transaction binding the contract method 0xcb07e33e.
//
// Solidity: function setSubnetOwner(uint16 netuid, address owner) returns()
func (_SubtensorState *SubtensorStateSession) SetSubnetOwner(netuid uint16, owner common.Address) (*types.Transaction, error) {
	return _SubtensorState.Contract.SetSubnetOwner(&_SubtensorState.TransactOpts, netuid, owner)
}

// SetSubnetOwner is a paid mutator transaction binding the contract method 0xcb07e33e.
//
// Solidity: function setSubnetOwner(uint16 netuid, address owner) returns()
func (_SubtensorState *SubtensorStateTransactorSession) SetSubnetOwner(netuid uint16, owner common.Address) (*types.Transaction, error) {
	return _SubtensorState.Contract.SetSubnetOwner(&_SubtensorState.TransactOpts, netuid, owner)
}

// SetTempo is a paid mutator transaction binding the contract method 0xbf00dd45.
//
// Solidity: function setTempo(uint16 netuid, uint64 tempo) returns()
func (_SubtensorState *SubtensorStateTransactor) SetTempo(opts *bind.TransactOpts, netuid uint16, tempo uint64) (*types.Transaction, error) {
	return _SubtensorState.contract.Transact(opts, "setTempo", netuid, tempo)
}

// SetTempo is a paid mutator transaction binding the contract method 0xbf00dd45.
//
// Solidity: function setTempo(uint16 netuid, uint64 tempo) returns()
func (_SubtensorState *SubtensorStateSession) SetTempo(netuid uint16, tempo uint64) (*types.Transaction, error) {
	return _SubtensorState.Contract.SetTempo(&_SubtensorState.TransactOpts, netuid, tempo)
}

// SetTempo is a paid mutator transaction binding the contract method 0xbf00dd45.
//
// Solidity: function setTempo(uint16 netuid, uint64 tempo) returns()
func (_SubtensorState *SubtensorStateTransactorSession) SetTempo(netuid uint16, tempo uint64) (*types.Transaction, error) {
	return _SubtensorState.Contract.SetTempo(&_SubtensorState.TransactOpts, netuid, tempo)
}

// SetValidatorPermit is a paid mutator transaction binding the contract method 0xabb17e1a.
//
// Solidity: function setValidatorPermit(uint16 netuid, uint16 uid, bool permit) returns()
func (_SubtensorState *SubtensorStateTransactor) SetValidatorPermit(opts *bind.TransactOpts, netuid uint16, uid uint16, permit bool) (*types.Transaction, error) {
	return _SubtensorState.contract.Transact(opts, "setValidatorPermit", netuid, uid, permit)
}

// SetValidatorPermit is a paid mutator transaction binding the contract method 0xabb17e1a.
//
// Solidity: function setValidatorPermit(uint16 netuid, uint16 uid, bool permit) returns()
func (_SubtensorState *SubtensorStateSession) SetValidatorPermit(netuid uint16, uid uint16, permit bool) (*types.Transaction, error) {
	return _SubtensorState.Contract.SetValidatorPermit(&_SubtensorState.TransactOpts, netuid, uid, permit)
}

// SetValidatorPermit is a paid mutator transaction binding the contract method 0xabb17e1a.
//
// Solidity: function setValidatorPermit(uint16 netuid, uint16 uid, bool permit) returns()
func (_SubtensorState *SubtensorStateTransactorSession) SetValidatorPermit(netuid uint16, uid uint16, permit bool) (*types.Transaction, error) {
	return _SubtensorState.Contract.SetValidatorPermit(&_SubtensorState.TransactOpts, netuid, uid, permit)
}

// SubnetSetHyperparameter is a paid mutator transaction binding the contract method 0xc2d5a538.
//
// Solidity: function subnetSetHyperparameter(address caller, uint16 netuid, uint8 param, uint256 value) returns()
func (_SubtensorState *SubtensorStateTransactor) SubnetSetHyperparameter(opts *bind.TransactOpts, caller common.Address, netuid uint16, param uint8, value *big.Int) (*types.Transaction, error) {
	return _SubtensorState.contract.Transact(opts, "subnetSetHyperparameter", caller, netuid, param, value)
}

// SubnetSetHyperparameter is a paid mutator transaction binding the contract method 0xc2d5a538.
//
// Solidity: function subnetSetHyperparameter(address caller, uint16 netuid, uint8 param, uint256 value) returns()
func (_SubtensorState *SubtensorStateSession) SubnetSetHyperparameter(caller common.Address, netuid uint16, param uint8, value *big.Int) (*types.Transaction, error) {
	return _SubtensorState.Contract.SubnetSetHyperparameter(&_SubtensorState.TransactOpts, caller, netuid, param, value)
}

// SubnetSetHyperparameter is a paid mutator transaction binding the contract method 0xc2d5a538.
//
// Solidity: function subnetSetHyperparameter(address caller, uint16 netuid, uint8 param, uint256 value) returns()
func (_SubtensorState *SubtensorStateTransactorSession) SubnetSetHyperparameter(caller common.Address, netuid uint16, param uint8, value *big.Int) (*types.Transaction, error) {
	return _SubtensorState.Contract.SubnetSetHyperparameter(&_SubtensorState.TransactOpts, caller, netuid, param, value)
}

// TriggerEpoch is a paid mutator transaction binding the contract method 0x3b068be0.
//
// Solidity: function triggerEpoch(uint16 netuid) returns()
func (_SubtensorState *SubtensorStateTransactor) TriggerEpoch(opts *bind.TransactOpts, netuid uint16) (*types.Transaction, error) {
	return _SubtensorState.contract.Transact(opts, "triggerEpoch", netuid)
}

// TriggerEpoch is a paid mutator transaction binding the contract method 0x3b068be0.
//
// Solidity: function triggerEpoch(uint16 netuid) returns()
func (_SubtensorState *SubtensorStateSession) TriggerEpoch(netuid uint16) (*types.Transaction, error) {
	return _SubtensorState.Contract.TriggerEpoch(&_SubtensorState.TransactOpts, netuid)
}

// TriggerEpoch is a paid mutator transaction binding the contract method 0x3b068be0.
//
// Solidity: function triggerEpoch(uint16 netuid) returns()
func (_SubtensorState *SubtensorStateTransactorSession) TriggerEpoch(netuid uint16) (*types.Transaction, error) {
	return _SubtensorState.Contract.TriggerEpoch(&_SubtensorState.TransactOpts, netuid)
}

// SubtensorStateAdminChangedIterator is returned from FilterAdminChanged and is used to iterate over the raw logs and unpacked data for AdminChanged events raised by the SubtensorState contract.
type SubtensorStateAdminChangedIterator struct {
	Event *SubtensorStateAdminChanged // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *SubtensorStateAdminChangedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SubtensorStateAdminChanged)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(SubtensorStateAdminChanged)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *SubtensorStateAdminChangedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SubtensorStateAdminChangedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SubtensorStateAdminChanged represents a AdminChanged event raised by the SubtensorState contract.
type SubtensorStateAdminChanged struct {
	Previous common.Address
	Admin    common.Address
	Raw      types.Log // Blockchain specific contextual infos
}

// FilterAdminChanged is a free log retrieval operation binding the contract event 0x7e644d79422f17c01e4894b5f4f588d331ebfa28653d42ae832dc59e38c9798f.
//
// Solidity: event AdminChanged(address indexed previous, address indexed admin)
func (_SubtensorState *SubtensorStateFilterer) FilterAdminChanged(opts *bind.FilterOpts, previous []common.Address, admin []common.Address) (*SubtensorStateAdminChangedIterator, error) {

	var previousRule []interface{}
	for _, previousItem := range previous {
		previousRule = append(previousRule, previousItem)
	}
	var adminRule []interface{}
	for _, adminItem := range admin {
		adminRule = append(adminRule, adminItem)
	}

	logs, sub, err := _SubtensorState.contract.FilterLogs(opts, "AdminChanged", previousRule, adminRule)
	if err != nil {
		return nil, err
	}
	return &SubtensorStateAdminChangedIterator{contract: _SubtensorState.contract, event: "AdminChanged", logs: logs, sub: sub}, nil
}

// WatchAdminChanged is a free log subscription operation binding the contract event 0x7e644d79422f17c01e4894b5f4f588d331ebfa28653d42ae832dc59e38c9798f.
//
// Solidity: event AdminChanged(address indexed previous, address indexed admin)
func (_SubtensorState *SubtensorStateFilterer) WatchAdminChanged(opts *bind.WatchOpts, sink chan<- *SubtensorStateAdminChanged, previous []common.Address, admin []common.Address) (event.Subscription, error) {

	var previousRule []interface{}
	for _, previousItem := range previous {
		previousRule = append(previousRule, previousItem)
	}
	var adminRule []interface{}
	for _, adminItem := range admin {
		adminRule = append(adminRule, adminItem)
	}

	logs, sub, err := _SubtensorState.contract.WatchLogs(opts, "AdminChanged", previousRule, adminRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SubtensorStateAdminChanged)
				if err := _SubtensorState.contract.UnpackLog(event, "AdminChanged", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseAdminChanged is a log parse operation binding the contract event 0x7e644d79422f17c01e4894b5f4f588d331ebfa28653d42ae832dc59e38c9798f.
//
// Solidity: event AdminChanged(address indexed previous, address indexed admin)
func (_SubtensorState *SubtensorStateFilterer) ParseAdminChanged(log types.Log) (*SubtensorStateAdminChanged, error) {
	event := new(SubtensorStateAdminChanged)
	if err := _SubtensorState.contract.UnpackLog(event, "AdminChanged", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// SubtensorStateAxonServedIterator is returned from FilterAxonServed and is used to iterate over the raw logs and unpacked data for AxonServed events raised by the SubtensorState contract.
type SubtensorStateAxonServedIterator struct {
	Event *SubtensorStateAxonServed // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *SubtensorStateAxonServedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SubtensorStateAxonServed)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(SubtensorStateAxonServed)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *SubtensorStateAxonServedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SubtensorStateAxonServedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SubtensorStateAxonServed represents a AxonServed event raised by the SubtensorState contract.
type SubtensorStateAxonServed struct {
	Netuid uint16
	Uid    uint16
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterAxonServed is a free log retrieval operation binding the contract event 0xd84cb594ab3aa15c9e0de2030a6026326ab3b39e61b36c9bd294193e3d2e63c3.
//
// Solidity: event AxonServed(uint16 indexed netuid, uint16 uid)
func (_SubtensorState *SubtensorStateFilterer) FilterAxonServed(opts *bind.FilterOpts, netuid []uint16) (*SubtensorStateAxonServedIterator, error) {

	var netuidRule []interface{}
	for _, netuidItem := range netuid {
		netuidRule = append(netuidRule, netuidItem)
	}

	logs, sub, err := _SubtensorState.contract.FilterLogs(opts, "AxonServed", netuidRule)
	if err != nil {
		return nil, err
	}
	return &SubtensorStateAxonServedIterator{contract: _SubtensorState.contract, event: "AxonServed", logs: logs, sub: sub}, nil
}

// WatchAxonServed is a free log subscription operation binding the contract event 0xd84cb594ab3aa15c9e0de2030a6026326ab3b39e61b36c9bd294193e3d2e63c3.
//
// Solidity: event AxonServed(uint16 indexed netuid, uint16 uid)
func (_SubtensorState *SubtensorStateFilterer) WatchAxonServed(opts *bind.WatchOpts, sink chan<- *SubtensorStateAxonServed, netuid []uint16) (event.Subscription, error) {

	var netuidRule []interface{}
	for _, netuidItem := range netuid {
		netuidRule = append(netuidRule, netuidItem)
	}

	logs, sub, err := _SubtensorState.contract.WatchLogs(opts, "AxonServed", netuidRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SubtensorStateAxonServed)
				if err := _SubtensorState.contract.UnpackLog(event, "AxonServed", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseAxonServed is a log parse operation binding the contract event 0xd84cb594ab3aa15c9e0de2030a6026326ab3b39e61b36c9bd294193e3d2e63c3.
//
// Solidity: event AxonServed(uint16 indexed netuid, uint16 uid)
func (_SubtensorState *SubtensorStateFilterer) ParseAxonServed(log types.Log) (*SubtensorStateAxonServed, error) {
	event := new(SubtensorStateAxonServed)
	if err := _SubtensorState.contract.UnpackLog(event, "AxonServed", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// SubtensorStateEpochResultsSetIterator is returned from FilterEpochResultsSet and is used to iterate over the raw logs and unpacked data for EpochResultsSet events raised by the SubtensorState contract.
type SubtensorStateEpochResultsSetIterator struct {
	Event *SubtensorStateEpochResultsSet // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *SubtensorStateEpochResultsSetIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SubtensorStateEpochResultsSet)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(SubtensorStateEpochResultsSet)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *SubtensorStateEpochResultsSetIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SubtensorStateEpochResultsSetIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SubtensorStateEpochResultsSet represents a EpochResultsSet event raised by the SubtensorState contract.
type SubtensorStateEpochResultsSet struct {
	Netuid      uint16
	BlockNumber uint64
	Raw         types.Log // Blockchain specific contextual infos
}

// FilterEpochResultsSet is a free log retrieval operation binding the contract event 0x7f5a789b32773c33d1c9fa61a3d2abc5b6d56798ca1af5016bcdfc99e7af217b.
//
// Solidity: event EpochResultsSet(uint16 indexed netuid, uint64 blockNumber)
func (_SubtensorState *SubtensorStateFilterer) FilterEpochResultsSet(opts *bind.FilterOpts, netuid []uint16) (*SubtensorStateEpochResultsSetIterator, error) {

	var netuidRule []interface{}
	for _, netuidItem := range netuid {
		netuidRule = append(netuidRule, netuidItem)
	}

	logs, sub, err := _SubtensorState.contract.FilterLogs(opts, "EpochResultsSet", netuidRule)
	if err != nil {
		return nil, err
	}
	return &SubtensorStateEpochResultsSetIterator{contract: _SubtensorState.contract, event: "EpochResultsSet", logs: logs, sub: sub}, nil
}

// WatchEpochResultsSet is a free log subscription operation binding the contract event 0x7f5a789b32773c33d1c9fa61a3d2abc5b6d56798ca1af5016bcdfc99e7af217b.
//
// Solidity: event EpochResultsSet(uint16 indexed netuid, uint64 blockNumber)
func (_SubtensorState *SubtensorStateFilterer) WatchEpochResultsSet(opts *bind.WatchOpts, sink chan<- *SubtensorStateEpochResultsSet, netuid []uint16) (event.Subscription, error) {

	var netuidRule []interface{}
	for _, netuidItem := range netuid {
		netuidRule = append(netuidRule, netuidItem)
	}

	logs, sub, err := _SubtensorState.contract.WatchLogs(opts, "EpochResultsSet", netuidRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SubtensorStateEpochResultsSet)
				if err := _SubtensorState.contract.UnpackLog(event, "EpochResultsSet", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseEpochResultsSet is a log parse operation binding the contract event 0x7f5a789b32773c33d1c9fa61a3d2abc5b6d56798ca1af5016bcdfc99e7af217b.
//
// Solidity: event EpochResultsSet(uint16 indexed netuid, uint64 blockNumber)
func (_SubtensorState *SubtensorStateFilterer) ParseEpochResultsSet(log types.Log) (*SubtensorStateEpochResultsSet, error) {
	event := new(SubtensorStateEpochResultsSet)
	if err := _SubtensorState.contract.UnpackLog(event, "EpochResultsSet", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// SubtensorStateEpochTriggeredIterator is returned from FilterEpochTriggered and is used to iterate over the raw logs and unpacked data for EpochTriggered events raised by the SubtensorState contract.
type SubtensorStateEpochTriggeredIterator struct {
	Event *SubtensorStateEpochTriggered // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *SubtensorStateEpochTriggeredIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SubtensorStateEpochTriggered)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(SubtensorStateEpochTriggered)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *SubtensorStateEpochTriggeredIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SubtensorStateEpochTriggeredIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SubtensorStateEpochTriggered represents a EpochTriggered event raised by the SubtensorState contract.
type SubtensorStateEpochTriggered struct {
	Netuid  uint16
	By      common.Address
	FiresAt uint64
	Raw     types.Log // Blockchain specific contextual infos
}

// FilterEpochTriggered is a free log retrieval operation binding the contract event 0xc0e928430daf62a4a86253bba16083da0a43c24f0709dc895540933df1060a73.
//
// Solidity: event EpochTriggered(uint16 indexed netuid, address by, uint64 firesAt)
func (_SubtensorState *SubtensorStateFilterer) FilterEpochTriggered(opts *bind.FilterOpts, netuid []uint16) (*SubtensorStateEpochTriggeredIterator, error) {

	var netuidRule []interface{}
	for _, netuidItem := range netuid {
		netuidRule = append(netuidRule, netuidItem)
	}

	logs, sub, err := _SubtensorState.contract.FilterLogs(opts, "EpochTriggered", netuidRule)
	if err != nil {
		return nil, err
	}
	return &SubtensorStateEpochTriggeredIterator{contract: _SubtensorState.contract, event: "EpochTriggered", logs: logs, sub: sub}, nil
}

// WatchEpochTriggered is a free log subscription operation binding the contract event 0xc0e928430daf62a4a86253bba16083da0a43c24f0709dc895540933df1060a73.
//
// Solidity: event EpochTriggered(uint16 indexed netuid, address by, uint64 firesAt)
func (_SubtensorState *SubtensorStateFilterer) WatchEpochTriggered(opts *bind.WatchOpts, sink chan<- *SubtensorStateEpochTriggered, netuid []uint16) (event.Subscription, error) {

	var netuidRule []interface{}
	for _, netuidItem := range netuid {
		netuidRule = append(netuidRule, netuidItem)
	}

	logs, sub, err := _SubtensorState.contract.WatchLogs(opts, "EpochTriggered", netuidRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SubtensorStateEpochTriggered)
				if err := _SubtensorState.contract.UnpackLog(event, "EpochTriggered", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseEpochTriggered is a log parse operation binding the contract event 0xc0e928430daf62a4a86253bba16083da0a43c24f0709dc895540933df1060a73.
//
// Solidity: event EpochTriggered(uint16 indexed netuid, address by, uint64 firesAt)
func (_SubtensorState *SubtensorStateFilterer) ParseEpochTriggered(log types.Log) (*SubtensorStateEpochTriggered, error) {
	event := new(SubtensorStateEpochTriggered)
	if err := _SubtensorState.contract.UnpackLog(event, "EpochTriggered", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// SubtensorStateEvmKeyAssociatedIterator is returned from FilterEvmKeyAssociated and is used to iterate over the raw logs and unpacked data for EvmKeyAssociated events raised by the SubtensorState contract.
type SubtensorStateEvmKeyAssociatedIterator struct {
	Event *SubtensorStateEvmKeyAssociated // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *SubtensorStateEvmKeyAssociatedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SubtensorStateEvmKeyAssociated)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(SubtensorStateEvmKeyAssociated)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *SubtensorStateEvmKeyAssociatedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SubtensorStateEvmKeyAssociatedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SubtensorStateEvmKeyAssociated represents a EvmKeyAssociated event raised by the SubtensorState contract.
type SubtensorStateEvmKeyAssociated struct {
	Netuid     uint16
	Uid        uint16
	EvmAddress common.Address
	Raw        types.Log // Blockchain specific contextual infos
}

// FilterEvmKeyAssociated is a free log retrieval operation binding the contract event 0x8bdeb709530b089e94d343778d82646db27114811bac4555c33ef8784f7662cf.
//
// Solidity: event EvmKeyAssociated(uint16 indexed netuid, uint16 uid, address evmAddress)
func (_SubtensorState *SubtensorStateFilterer) FilterEvmKeyAssociated(opts *bind.FilterOpts, netuid []uint16) (*SubtensorStateEvmKeyAssociatedIterator, error) {

	var netuidRule []interface{}
	for _, netuidItem := range netuid {
		netuidRule = append(netuidRule, netuidItem)
	}

	logs, sub, err := _SubtensorState.contract.FilterLogs(opts, "EvmKeyAssociated", netuidRule)
	if err != nil {
		return nil, err
	}
	return &SubtensorStateEvmKeyAssociatedIterator{contract: _SubtensorState.contract, event: "EvmKeyAssociated", logs: logs, sub: sub}, nil
}

// WatchEvmKeyAssociated is a free log subscription operation binding the contract event 0x8bdeb709530b089e94d343778d82646db27114811bac4555c33ef8784f7662cf.
//
// Solidity: event EvmKeyAssociated(uint16 indexed netuid, uint16 uid, address evmAddress)
func (_SubtensorState *SubtensorStateFilterer) WatchEvmKeyAssociated(opts *bind.WatchOpts, sink chan<- *SubtensorStateEvmKeyAssociated, netuid []uint16) (event.Subscription, error) {

	var netuidRule []interface{}
	for _, netuidItem := range netuid {
		netuidRule = append(netuidRule, netuidItem)
	}

	logs, sub, err := _SubtensorState.contract.WatchLogs(opts, "EvmKeyAssociated", netuidRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SubtensorStateEvmKeyAssociated)
				if err := _SubtensorState.contract.UnpackLog(event, "EvmKeyAssociated", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseEvmKeyAssociated is a log parse operation binding the contract event 0x8bdeb709530b089e94d343778d82646db27114811bac4555c33ef8784f7662cf.
//
// Solidity: event EvmKeyAssociated(uint16 indexed netuid, uint16 uid, address evmAddress)
func (_SubtensorState *SubtensorStateFilterer) ParseEvmKeyAssociated(log types.Log) (*SubtensorStateEvmKeyAssociated, error) {
	event := new(SubtensorStateEvmKeyAssociated)
	if err := _SubtensorState.contract.UnpackLog(event, "EvmKeyAssociated", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// SubtensorStateHyperparameterSetIterator is returned from FilterHyperparameterSet and is used to iterate over the raw logs and unpacked data for HyperparameterSet events raised by the SubtensorState contract.
type SubtensorStateHyperparameterSetIterator struct {
	Event *SubtensorStateHyperparameterSet // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *SubtensorStateHyperparameterSetIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SubtensorStateHyperparameterSet)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(SubtensorStateHyperparameterSet)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *SubtensorStateHyperparameterSetIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SubtensorStateHyperparameterSetIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SubtensorStateHyperparameterSet represents a HyperparameterSet event raised by the SubtensorState contract.
type SubtensorStateHyperparameterSet struct {
	Netuid uint16
	Param  uint8
	Value  *big.Int
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterHyperparameterSet is a free log retrieval operation binding the contract event 0x50ecda9b9a6fcea28574e0c210b0d08e1cc83df45ea617e7388059d477b83518.
//
// Solidity: event HyperparameterSet(uint16 indexed netuid, uint8 param, uint256 value)
func (_SubtensorState *SubtensorStateFilterer) FilterHyperparameterSet(opts *bind.FilterOpts, netuid []uint16) (*SubtensorStateHyperparameterSetIterator, error) {

	var netuidRule []interface{}
	for _, netuidItem := range netuid {
		netuidRule = append(netuidRule, netuidItem)
	}

	logs, sub, err := _SubtensorState.contract.FilterLogs(opts, "HyperparameterSet", netuidRule)
	if err != nil {
		return nil, err
	}
	return &SubtensorStateHyperparameterSetIterator{contract: _SubtensorState.contract, event: "HyperparameterSet", logs: logs, sub: sub}, nil
}

// WatchHyperparameterSet is a free log subscription operation binding the contract event 0x50ecda9b9a6fcea28574e0c210b0d08e1cc83df45ea617e7388059d477b83518.
//
// Solidity: event HyperparameterSet(uint16 indexed netuid, uint8 param, uint256 value)
func (_SubtensorState *SubtensorStateFilterer) WatchHyperparameterSet(opts *bind.WatchOpts, sink chan<- *SubtensorStateHyperparameterSet, netuid []uint16) (event.Subscription, error) {

	var netuidRule []interface{}
	for _, netuidItem := range netuid {
		netuidRule = append(netuidRule, netuidItem)
	}

	logs, sub, err := _SubtensorState.contract.WatchLogs(opts, "HyperparameterSet", netuidRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SubtensorStateHyperparameterSet)
				if err := _SubtensorState.contract.UnpackLog(event, "HyperparameterSet", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseHyperparameterSet is a log parse operation binding the contract event 0x50ecda9b9a6fcea28574e0c210b0d08e1cc83df45ea617e7388059d477b83518.
//
// Solidity: event HyperparameterSet(uint16 indexed netuid, uint8 param, uint256 value)
func (_SubtensorState *SubtensorStateFilterer) ParseHyperparameterSet(log types.Log) (*SubtensorStateHyperparameterSet, error) {
	event := new(SubtensorStateHyperparameterSet)
	if err := _SubtensorState.contract.UnpackLog(event, "HyperparameterSet", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// SubtensorStateNeuronRegisteredIterator is returned from FilterNeuronRegistered and is used to iterate over the raw logs and unpacked data for NeuronRegistered events raised by the SubtensorState contract.
type SubtensorStateNeuronRegisteredIterator struct {
	Event *SubtensorStateNeuronRegistered // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *SubtensorStateNeuronRegisteredIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SubtensorStateNeuronRegistered)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(SubtensorStateNeuronRegistered)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *SubtensorStateNeuronRegisteredIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SubtensorStateNeuronRegisteredIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SubtensorStateNeuronRegistered represents a NeuronRegistered event raised by the SubtensorState contract.
type SubtensorStateNeuronRegistered struct {
	Netuid  uint16
	Uid     uint16
	Hotkey  [32]byte
	Coldkey [32]byte
	Raw     types.Log // Blockchain specific contextual infos
}

// FilterNeuronRegistered is a free log retrieval operation binding the contract event 0xdf256cf29b430d6036b661b0f27505424a147e064cf0db30eccd897f3291447e.
//
// Solidity: event NeuronRegistered(uint16 indexed netuid, uint16 uid, bytes32 hotkey, bytes32 coldkey)
func (_SubtensorState *SubtensorStateFilterer) FilterNeuronRegistered(opts *bind.FilterOpts, netuid []uint16) (*SubtensorStateNeuronRegisteredIterator, error) {

	var netuidRule []interface{}
	for _, netuidItem := range netuid {
		netuidRule = append(netuidRule, netuidItem)
	}

	logs, sub, err := _SubtensorState.contract.FilterLogs(opts, "NeuronRegistered", netuidRule)
	if err != nil {
		return nil, err
	}
	return &SubtensorStateNeuronRegisteredIterator{contract: _SubtensorState.contract, event: "NeuronRegistered", logs: logs, sub: sub}, nil
}

// WatchNeuronRegistered is a free log subscription operation binding the contract event 0xdf256cf29b430d6036b661b0f27505424a147e064cf0db30eccd897f3291447e.
//
// Solidity: event NeuronRegistered(uint16 indexed netuid, uint16 uid, bytes32 hotkey, bytes32 coldkey)
func (_SubtensorState *SubtensorStateFilterer) WatchNeuronRegistered(opts *bind.WatchOpts, sink chan<- *SubtensorStateNeuronRegistered, netuid []uint16) (event.Subscription, error) {

	var netuidRule []interface{}
	for _, netuidItem := range netuid {
		netuidRule = append(netuidRule, netuidItem)
	}

	logs, sub, err := _SubtensorState.contract.WatchLogs(opts, "NeuronRegistered", netuidRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SubtensorStateNeuronRegistered)
				if err := _SubtensorState.contract.UnpackLog(event, "NeuronRegistered", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseNeuronRegistered is a log parse operation binding the contract event 0xdf256cf29b430d6036b661b0f27505424a147e064cf0db30eccd897f3291447e.
//
// Solidity: event NeuronRegistered(uint16 indexed netuid, uint16 uid, bytes32 hotkey, bytes32 coldkey)
func (_SubtensorState *SubtensorStateFilterer) ParseNeuronRegistered(log types.Log) (*SubtensorStateNeuronRegistered, error) {
	event := new(SubtensorStateNeuronRegistered)
	if err := _SubtensorState.contract.UnpackLog(event, "NeuronRegistered", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// SubtensorStatePrometheusServedIterator is returned from FilterPrometheusServed and is used to iterate over the raw logs and unpacked data for PrometheusServed events raised by the SubtensorState contract.
type SubtensorStatePrometheusServedIterator struct {
	Event *SubtensorStatePrometheusServed // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *SubtensorStatePrometheusServedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SubtensorStatePrometheusServed)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(SubtensorStatePrometheusServed)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *SubtensorStatePrometheusServedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SubtensorStatePrometheusServedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SubtensorStatePrometheusServed represents a PrometheusServed event raised by the SubtensorState contract.
type SubtensorStatePrometheusServed struct {
	Netuid uint16
	Uid    uint16
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterPrometheusServed is a free log retrieval operation binding the contract event 0xd97a32be02cf5e6066c87f4dcb5f5ad0535603d61b021ade405f232f25327a37.
//
// Solidity: event PrometheusServed(uint16 indexed netuid, uint16 uid)
func (_SubtensorState *SubtensorStateFilterer) FilterPrometheusServed(opts *bind.FilterOpts, netuid []uint16) (*SubtensorStatePrometheusServedIterator, error) {

	var netuidRule []interface{}
	for _, netuidItem := range netuid {
		netuidRule = append(netuidRule, netuidItem)
	}

	logs, sub, err := _SubtensorState.contract.FilterLogs(opts, "PrometheusServed", netuidRule)
	if err != nil {
		return nil, err
	}
	return &SubtensorStatePrometheusServedIterator{contract: _SubtensorState.contract, event: "PrometheusServed", logs: logs, sub: sub}, nil
}

// WatchPrometheusServed is a free log subscription operation binding the contract event 0xd97a32be02cf5e6066c87f4dcb5f5ad0535603d61b021ade405f232f25327a37.
//
// Solidity: event PrometheusServed(uint16 indexed netuid, uint16 uid)
func (_SubtensorState *SubtensorStateFilterer) WatchPrometheusServed(opts *bind.WatchOpts, sink chan<- *SubtensorStatePrometheusServed, netuid []uint16) (event.Subscription, error) {

	var netuidRule []interface{}
	for _, netuidItem := range netuid {
		netuidRule = append(netuidRule, netuidItem)
	}

	logs, sub, err := _SubtensorState.contract.WatchLogs(opts, "PrometheusServed", netuidRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SubtensorStatePrometheusServed)
				if err := _SubtensorState.contract.UnpackLog(event, "PrometheusServed", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParsePrometheusServed is a log parse operation binding the contract event 0xd97a32be02cf5e6066c87f4dcb5f5ad0535603d61b021ade405f232f25327a37.
//
// Solidity: event PrometheusServed(uint16 indexed netuid, uint16 uid)
func (_SubtensorState *SubtensorStateFilterer) ParsePrometheusServed(log types.Log) (*SubtensorStatePrometheusServed, error) {
	event := new(SubtensorStatePrometheusServed)
	if err := _SubtensorState.contract.UnpackLog(event, "PrometheusServed", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// SubtensorStateSubnetCreatedIterator is returned from FilterSubnetCreated and is used to iterate over the raw logs and unpacked data for SubnetCreated events raised by the SubtensorState contract.
type SubtensorStateSubnetCreatedIterator struct {
	Event *SubtensorStateSubnetCreated // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *SubtensorStateSubnetCreatedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SubtensorStateSubnetCreated)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(SubtensorStateSubnetCreated)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *SubtensorStateSubnetCreatedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SubtensorStateSubnetCreatedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SubtensorStateSubnetCreated represents a SubnetCreated event raised by the SubtensorState contract.
type SubtensorStateSubnetCreated struct {
	Netuid uint16
	Owner  common.Address
	Tempo  uint64
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterSubnetCreated is a free log retrieval operation binding the contract event 0x5b73685e89a28564e659d4672acfe0b3419a592be102a27d39cd9b3f06e38212.
//
// Solidity: event SubnetCreated(uint16 indexed netuid, address owner, uint64 tempo)
func (_SubtensorState *SubtensorStateFilterer) FilterSubnetCreated(opts *bind.FilterOpts, netuid []uint16) (*SubtensorStateSubnetCreatedIterator, error) {

	var netuidRule []interface{}
	for _, netuidItem := range netuid {
		netuidRule = append(netuidRule, netuidItem)
	}

	logs, sub, err := _SubtensorState.contract.FilterLogs(opts, "SubnetCreated", netuidRule)
	if err != nil {
		return nil, err
	}
	return &SubtensorStateSubnetCreatedIterator{contract: _SubtensorState.contract, event: "SubnetCreated", logs: logs, sub: sub}, nil
}

// WatchSubnetCreated is a free log subscription operation binding the contract event 0x5b73685e89a28564e659d4672acfe0b3419a592be102a27d39cd9b3f06e38212.
//
// Solidity: event SubnetCreated(uint16 indexed netuid, address owner, uint64 tempo)
func (_SubtensorState *SubtensorStateFilterer) WatchSubnetCreated(opts *bind.WatchOpts, sink chan<- *SubtensorStateSubnetCreated, netuid []uint16) (event.Subscription, error) {

	var netuidRule []interface{}
	for _, netuidItem := range netuid {
		netuidRule = append(netuidRule, netuidItem)
	}

	logs, sub, err := _SubtensorState.contract.WatchLogs(opts, "SubnetCreated", netuidRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SubtensorStateSubnetCreated)
				if err := _SubtensorState.contract.UnpackLog(event, "SubnetCreated", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseSubnetCreated is a log parse operation binding the contract event 0x5b73685e89a28564e659d4672acfe0b3419a592be102a27d39cd9b3f06e38212.
//
// Solidity: event SubnetCreated(uint16 indexed netuid, address owner, uint64 tempo)
func (_SubtensorState *SubtensorStateFilterer) ParseSubnetCreated(log types.Log) (*SubtensorStateSubnetCreated, error) {
	event := new(SubtensorStateSubnetCreated)
	if err := _SubtensorState.contract.UnpackLog(event, "SubnetCreated", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// SubtensorStateWeightsCommittedIterator is returned from FilterWeightsCommitted and is used to iterate over the raw logs and unpacked data for WeightsCommitted events raised by the SubtensorState contract.
type SubtensorStateWeightsCommittedIterator struct {
	Event *SubtensorStateWeightsCommitted // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *SubtensorStateWeightsCommittedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SubtensorStateWeightsCommitted)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(SubtensorStateWeightsCommitted)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *SubtensorStateWeightsCommittedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SubtensorStateWeightsCommittedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SubtensorStateWeightsCommitted represents a WeightsCommitted event raised by the SubtensorState contract.
type SubtensorStateWeightsCommitted struct {
	Netuid     uint16
	Uid        uint16
	CommitHash [32]byte
	Raw        types.Log // Blockchain specific contextual infos
}

// FilterWeightsCommitted is a free log retrieval operation binding the contract event 0x1711ccfa1df7ff2203c867f18e87b269ccfadfcc7cda12dfe765404d8c4d4a37.
//
// Solidity: event WeightsCommitted(uint16 indexed netuid, uint16 uid, bytes32 commitHash)
func (_SubtensorState *SubtensorStateFilterer) FilterWeightsCommitted(opts *bind.FilterOpts, netuid []uint16) (*SubtensorStateWeightsCommittedIterator, error) {

	var netuidRule []interface{}
	for _, netuidItem := range netuid {
		netuidRule = append(netuidRule, netuidItem)
	}

	logs, sub, err := _SubtensorState.contract.FilterLogs(opts, "WeightsCommitted", netuidRule)
	if err != nil {
		return nil, err
	}
	return &SubtensorStateWeightsCommittedIterator{contract: _SubtensorState.contract, event: "WeightsCommitted", logs: logs, sub: sub}, nil
}

// WatchWeightsCommitted is a free log subscription operation binding the contract event 0x1711ccfa1df7ff2203c867f18e87b269ccfadfcc7cda12dfe765404d8c4d4a37.
//
// Solidity: event WeightsCommitted(uint16 indexed netuid, uint16 uid, bytes32 commitHash)
func (_SubtensorState *SubtensorStateFilterer) WatchWeightsCommitted(opts *bind.WatchOpts, sink chan<- *SubtensorStateWeightsCommitted, netuid []uint16) (event.Subscription, error) {

	var netuidRule []interface{}
	for _, netuidItem := range netuid {
		netuidRule = append(netuidRule, netuidItem)
	}

	logs, sub, err := _SubtensorState.contract.WatchLogs(opts, "WeightsCommitted", netuidRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SubtensorStateWeightsCommitted)
				if err := _SubtensorState.contract.UnpackLog(event, "WeightsCommitted", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseWeightsCommitted is a log parse operation binding the contract event 0x1711ccfa1df7ff2203c867f18e87b269ccfadfcc7cda12dfe765404d8c4d4a37.
//
// Solidity: event WeightsCommitted(uint16 indexed netuid, uint16 uid, bytes32 commitHash)
func (_SubtensorState *SubtensorStateFilterer) ParseWeightsCommitted(log types.Log) (*SubtensorStateWeightsCommitted, error) {
	event := new(SubtensorStateWeightsCommitted)
	if err := _SubtensorState.contract.UnpackLog(event, "WeightsCommitted", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// SubtensorStateWeightsRevealedIterator is returned from FilterWeightsRevealed and is used to iterate over the raw logs and unpacked data for WeightsRevealed events raised by the SubtensorState contract.
type SubtensorStateWeightsRevealedIterator struct {
	Event *SubtensorStateWeightsRevealed // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *SubtensorStateWeightsRevealedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SubtensorStateWeightsRevealed)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(SubtensorStateWeightsRevealed)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *SubtensorStateWeightsRevealedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SubtensorStateWeightsRevealedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SubtensorStateWeightsRevealed represents a WeightsRevealed event raised by the SubtensorState contract.
type SubtensorStateWeightsRevealed struct {
	Netuid     uint16
	Uid        uint16
	CommitHash [32]byte
	Raw        types.Log // Blockchain specific contextual infos
}

// FilterWeightsRevealed is a free log retrieval operation binding the contract event 0xb4f6005b26d00657167c9ccbeb4300ae8ada42b6e65189102a3eed1ada73f3bc.
//
// Solidity: event WeightsRevealed(uint16 indexed netuid, uint16 uid, bytes32 commitHash)
func (_SubtensorState *SubtensorStateFilterer) FilterWeightsRevealed(opts *bind.FilterOpts, netuid []uint16) (*SubtensorStateWeightsRevealedIterator, error) {

	var netuidRule []interface{}
	for _, netuidItem := range netuid {
		netuidRule = append(netuidRule, netuidItem)
	}

	logs, sub, err := _SubtensorState.contract.FilterLogs(opts, "WeightsRevealed", netuidRule)
	if err != nil {
		return nil, err
	}
	return &SubtensorStateWeightsRevealedIterator{contract: _SubtensorState.contract, event: "WeightsRevealed", logs: logs, sub: sub}, nil
}

// WatchWeightsRevealed is a free log subscription operation binding the contract event 0xb4f6005b26d00657167c9ccbeb4300ae8ada42b6e65189102a3eed1ada73f3bc.
//
// Solidity: event WeightsRevealed(uint16 indexed netuid, uint16 uid, bytes32 commitHash)
func (_SubtensorState *SubtensorStateFilterer) WatchWeightsRevealed(opts *bind.WatchOpts, sink chan<- *SubtensorStateWeightsRevealed, netuid []uint16) (event.Subscription, error) {

	var netuidRule []interface{}
	for _, netuidItem := range netuid {
		netuidRule = append(netuidRule, netuidItem)
	}

	logs, sub, err := _SubtensorState.contract.WatchLogs(opts, "WeightsRevealed", netuidRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SubtensorStateWeightsRevealed)
				if err := _SubtensorState.contract.UnpackLog(event, "WeightsRevealed", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseWeightsRevealed is a log parse operation binding the contract event 0xb4f6005b26d00657167c9ccbeb4300ae8ada42b6e65189102a3eed1ada73f3bc.
//
// Solidity: event WeightsRevealed(uint16 indexed netuid, uint16 uid, bytes32 commitHash)
func (_SubtensorState *SubtensorStateFilterer) ParseWeightsRevealed(log types.Log) (*SubtensorStateWeightsRevealed, error) {
	event := new(SubtensorStateWeightsRevealed)
	if err := _SubtensorState.contract.UnpackLog(event, "WeightsRevealed", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// SubtensorStateWeightsSetIterator is returned from FilterWeightsSet and is used to iterate over the raw logs and unpacked data for WeightsSet events raised by the SubtensorState contract.
type SubtensorStateWeightsSetIterator struct {
	Event *SubtensorStateWeightsSet // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *SubtensorStateWeightsSetIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SubtensorStateWeightsSet)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(SubtensorStateWeightsSet)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *SubtensorStateWeightsSetIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SubtensorStateWeightsSetIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SubtensorStateWeightsSet represents a WeightsSet event raised by the SubtensorState contract.
type SubtensorStateWeightsSet struct {
	Netuid uint16
	Uid    uint16
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterWeightsSet is a free log retrieval operation binding the contract event 0x66046cdbf2e10a3842293fa601df33bd34c8a4ffccb149dc986209144e393d02.
//
// Solidity: event WeightsSet(uint16 indexed netuid, uint16 uid)
func (_SubtensorState *SubtensorStateFilterer) FilterWeightsSet(opts *bind.FilterOpts, netuid []uint16) (*SubtensorStateWeightsSetIterator, error) {

	var netuidRule []interface{}
	for _, netuidItem := range netuid {
		netuidRule = append(netuidRule, netuidItem)
	}

	logs, sub, err := _SubtensorState.contract.FilterLogs(opts, "WeightsSet", netuidRule)
	if err != nil {
		return nil, err
	}
	return &SubtensorStateWeightsSetIterator{contract: _SubtensorState.contract, event: "WeightsSet", logs: logs, sub: sub}, nil
}

// WatchWeightsSet is a free log subscription operation binding the contract event 0x66046cdbf2e10a3842293fa601df33bd34c8a4ffccb149dc986209144e393d02.
//
// Solidity: event WeightsSet(uint16 indexed netuid, uint16 uid)
func (_SubtensorState *SubtensorStateFilterer) WatchWeightsSet(opts *bind.WatchOpts, sink chan<- *SubtensorStateWeightsSet, netuid []uint16) (event.Subscription, error) {

	var netuidRule []interface{}
	for _, netuidItem := range netuid {
		netuidRule = append(netuidRule, netuidItem)
	}

	logs, sub, err := _SubtensorState.contract.WatchLogs(opts, "WeightsSet", netuidRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SubtensorStateWeightsSet)
				if err := _SubtensorState.contract.UnpackLog(event, "WeightsSet", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseWeightsSet is a log parse operation binding the contract event 0x66046cdbf2e10a3842293fa601df33bd34c8a4ffccb149dc986209144e393d02.
//
// Solidity: event WeightsSet(uint16 indexed netuid, uint16 uid)
func (_SubtensorState *SubtensorStateFilterer) ParseWeightsSet(log types.Log) (*SubtensorStateWeightsSet, error) {
	event := new(SubtensorStateWeightsSet)
	if err := _SubtensorState.contract.UnpackLog(event, "WeightsSet", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
