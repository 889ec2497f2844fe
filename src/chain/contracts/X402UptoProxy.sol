// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";

/// @notice The part of Uniswap's Permit2 (ISignatureTransfer) this contract calls.
interface ISignatureTransfer {
    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    function permitWitnessTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external;
}

/// @notice The ERC-2612 `permit` of a token, called before settling when the payer has not approved Permit2 yet.
interface IERC20Permit {
    function permit(
        address owner,
        address spender,
        uint256 value,
        uint256 deadline,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external;
}

/// @notice A stand-in for x402's `upto` Permit2 proxy on local chains, written from the ABI and behaviour that the
/// x402 EVM package expects: the payer signs a Permit2 transfer of at most `permitted.amount` with this contract as the
/// spender and a witness naming the recipient and the one facilitator allowed to settle; that facilitator then
/// settles the amount actually owed. PERMIT2 is a constant, so the runtime code has no immutables and is installed
/// as is at x402's fixed address.
contract X402UptoProxy is ReentrancyGuardTransient {
    struct Witness {
        address to;
        address facilitator;
        uint256 validAfter;
    }

    struct EIP2612Permit {
        uint256 value;
        uint256 deadline;
        bytes32 r;
        bytes32 s;
        uint8 v;
    }

    ISignatureTransfer public constant PERMIT2 = ISignatureTransfer(0x000000000022D473030F116dDEE9F6B43aC78BA3);

    // Permit2 appends this to "PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,
    // uint256 deadline," to build the type the payer signed: the witness field, then the referenced types, sorted.
    string public constant WITNESS_TYPE_STRING =
        "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,address facilitator,uint256 validAfter)";

    bytes32 public constant WITNESS_TYPEHASH = keccak256("Witness(address to,address facilitator,uint256 validAfter)");

    event Settled();
    event SettledWithPermit();

    error AmountExceedsPermitted();
    error InvalidDestination();
    error InvalidOwner();
    // x402's proxy raises it in its constructor; declared for the same ABI, never raised here (PERMIT2 is a constant).
    error InvalidPermit2Address();
    error PaymentTooEarly();
    error Permit2612AmountMismatch();
    error UnauthorizedFacilitator();

    /// @notice Moves `amount` (at most the signed maximum) from `owner` to `witness.to`; only `witness.facilitator`
    /// may call it. Permit2 spends the nonce, so a payload settles once whatever the amount.
    function settle(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        _settle(permit, amount, owner, witness, signature);
        emit Settled();
    }

    /// @notice `settle` after the token's ERC-2612 permit approves Permit2 for the payer. A failing permit is
    /// ignored (it may have been used by someone else already): the transfer then fails unless Permit2 is approved.
    function settleWithPermit(
        EIP2612Permit calldata permit2612,
        ISignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        if (permit2612.value != permit.permitted.amount) revert Permit2612AmountMismatch();
        try
            IERC20Permit(permit.permitted.token).permit(
                owner,
                address(PERMIT2),
                permit2612.value,
                permit2612.deadline,
                permit2612.v,
                permit2612.r,
                permit2612.s
            )
        {} catch {}
        _settle(permit, amount, owner, witness, signature);
        emit SettledWithPermit();
    }

    function _settle(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) private {
        if (msg.sender != witness.facilitator) revert UnauthorizedFacilitator();
        if (owner == address(0)) revert InvalidOwner();
        if (witness.to == address(0)) revert InvalidDestination();
        if (amount > permit.permitted.amount) revert AmountExceedsPermitted();
        if (block.timestamp < witness.validAfter) revert PaymentTooEarly();
        bytes32 witnessHash = keccak256(
            abi.encode(WITNESS_TYPEHASH, witness.to, witness.facilitator, witness.validAfter)
        );
        PERMIT2.permitWitnessTransferFrom(
            permit,
            ISignatureTransfer.SignatureTransferDetails({to: witness.to, requestedAmount: amount}),
            owner,
            witnessHash,
            WITNESS_TYPE_STRING,
            signature
        );
    }
}
